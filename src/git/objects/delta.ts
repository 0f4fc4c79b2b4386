import { corrupt } from "./object-error.ts";

/** git's delta encoding: a size varint, little-endian groups of 7 bits. */
function readSize(delta: Uint8Array, at: { pos: number }): number {
  let size = 0;
  let shift = 0;
  for (;;) {
    if (at.pos >= delta.length || shift > 49) corrupt("delta header is truncated or too long");
    const byte = delta[at.pos++] as number;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return size;
  }
}

/**
 * Applies a git delta (copy-from-base and insert instructions) to `base`. Every copy and insert
 * is checked against both buffers, and the result may not exceed `maxBytes`, so a hostile delta
 * can neither read outside its base nor make a huge object.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array, maxBytes: number): Uint8Array {
  const at = { pos: 0 };
  const sourceSize = readSize(delta, at);
  if (sourceSize !== base.length) corrupt(`delta expects a ${sourceSize}-byte base, found ${base.length} bytes`);
  const targetSize = readSize(delta, at);
  if (targetSize > maxBytes) corrupt(`delta result of ${targetSize} bytes exceeds the ${maxBytes}-byte limit`);
  const out = new Uint8Array(targetSize);
  let written = 0;
  while (at.pos < delta.length) {
    const op = delta[at.pos++] as number;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += (delta[at.pos++] ?? 0) * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += (delta[at.pos++] ?? 0) * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (at.pos > delta.length) corrupt("delta copy instruction is truncated");
      if (offset + size > base.length || written + size > targetSize)
        corrupt("delta copies outside its base or result");
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op !== 0) {
      if (at.pos + op > delta.length || written + op > targetSize) corrupt("delta insert runs past its data or result");
      out.set(delta.subarray(at.pos, at.pos + op), written);
      at.pos += op;
      written += op;
    } else {
      corrupt("delta holds the reserved instruction 0");
    }
  }
  if (written !== targetSize) corrupt(`delta builds ${written} bytes, not the ${targetSize} it declares`);
  return out;
}
