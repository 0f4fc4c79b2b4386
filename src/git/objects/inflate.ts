import { inflateSync } from "node:zlib";
import { corrupt } from "./object-error.ts";

/**
 * The bytes a zlib stream of `size` uncompressed bytes can take at most: deflate's stored blocks
 * add 5 bytes per 64 KiB, the zlib wrapper 6; the margin covers the rest.
 */
export function maxDeflatedBytes(size: number): number {
  return size + Math.ceil(size / 16_384) * 5 + 64;
}

/**
 * Inflates a zlib stream that must give exactly `size` bytes. Output beyond `size` is never
 * allocated (`maxOutputLength`), so a declared size is a real bound; bytes after the stream's end
 * (the next object in a pack) are ignored by zlib.
 */
export function inflateExactly(input: Uint8Array, size: number, what: string): Uint8Array {
  let output: Uint8Array;
  try {
    output = inflateSync(input, { maxOutputLength: Math.max(1, size) });
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE"
        ? "is larger than it declares"
        : "does not inflate";
    return corrupt(`${what} ${reason} (${(error as Error).message})`);
  }
  if (output.length !== size) corrupt(`${what} inflates to ${output.length} bytes, not the ${size} it declares`);
  return output;
}
