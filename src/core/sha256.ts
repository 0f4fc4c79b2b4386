/** SHA-256 as lowercase hex, by Bun's hasher: loading `node:crypto` costs every start-up 1.5–2 ms. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
