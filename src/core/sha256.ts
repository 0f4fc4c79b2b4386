/**
 * SHA-256 of a string, as lowercase hex. Bun's built-in hasher, not `node:crypto`: loading that
 * module is a measurable share of start-up (1.5–2 ms in the compiled binary), paid by every
 * launch for a hash only GitHub and Jira calls need.
 */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
