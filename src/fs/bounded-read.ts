import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** What reading a file under a cap gave; `info` is the `fstat` of the very descriptor that was read. */
export type BoundedRead = { kind: "found"; bytes: Uint8Array; info: Stats } | BoundedFailure;
export type BoundedFailure =
  | { kind: "missing" }
  | { kind: "directory" }
  /** A FIFO, socket or device: never read, since it may block or never end. */
  | { kind: "special" }
  | { kind: "too-large"; limit: number }
  | { kind: "unreadable"; error: unknown };

/** Non-blocking, so opening a FIFO does not wait for a writer; no controlling terminal taken. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** {@link readBounded}'s checks without the read: a regular file of at most `maxBytes`, its descriptor for the caller to close. */
export function openBounded(
  path: string,
  maxBytes: number,
): { kind: "open"; fd: number; info: Stats } | BoundedFailure {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    if (code === "EISDIR") return { kind: "directory" };
    // A socket cannot be opened at all.
    if (code === "ENXIO") return { kind: "special" };
    return { kind: "unreadable", error };
  }
  let failure: BoundedFailure;
  try {
    const info = fstatSync(fd);
    if (info.isFile() && info.size <= maxBytes) return { kind: "open", fd, info };
    failure = info.isDirectory()
      ? { kind: "directory" }
      : info.isFile()
        ? { kind: "too-large", limit: maxBytes }
        : { kind: "special" };
  } catch (error) {
    failure = { kind: "unreadable", error };
  }
  closeSync(fd);
  return failure;
}

/**
 * The one way the server reads a file: a file can be swapped after `stat`, a FIFO blocks, a `/proc` file says size
 * 0. So: opened once, `fstat`ed (regular files only), at most `maxBytes + 1` bytes read. Synchronous: see local-fs.ts.
 */
export function readBounded(path: string, maxBytes: number): BoundedRead {
  const opened = openBounded(path, maxBytes);
  if (opened.kind !== "open") return opened;
  try {
    const bytes = readUpTo(opened.fd, maxBytes + 1, opened.info.size);
    if (bytes.length > maxBytes) return { kind: "too-large", limit: maxBytes };
    return { kind: "found", bytes, info: opened.info };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EISDIR" ? { kind: "directory" } : { kind: "unreadable", error };
  } finally {
    closeSync(opened.fd);
  }
}

/** Reads until end of file or `limit` bytes in whole 4 KiB blocks: `/proc` files refuse partial records. */
function readUpTo(fd: number, limit: number, claimedSize: number): Uint8Array {
  const blocks = (bytes: number) => Math.ceil(bytes / 4096) * 4096;
  const chunks: Buffer[] = [];
  let length = 0;
  for (let size = claimedSize === 0 ? 64 * 1024 : blocks(claimedSize + 1); length < limit; ) {
    const chunk = Buffer.allocUnsafe(Math.min(size, blocks(limit - length)));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    length += n;
    size = n < chunk.length ? 4096 : size * 2;
  }
  // Copied unless one chunk mostly used: a cached small file must not pin a large buffer.
  return chunks.length === 1 && length + 4096 > (chunks[0] as Buffer).buffer.byteLength
    ? (chunks[0] as Buffer)
    : Buffer.concat(chunks, length);
}
