import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** What reading a file under a cap gave; `info` is the `fstat` of the very descriptor that was read. */
export type BoundedRead =
  | { kind: "found"; bytes: Uint8Array; info: Stats }
  | { kind: "missing" }
  | { kind: "directory" }
  /** A FIFO, socket or device: never read, since it may block or never end. */
  | { kind: "special" }
  | { kind: "too-large"; limit: number }
  | { kind: "unreadable"; error: unknown };

/**
 * Non-blocking, so that opening a FIFO returns at once instead of waiting for a writer; no
 * controlling terminal taken from a tty. Neither changes how a regular file reads.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * The one way the server reads a file. Files under a cloned repository are hostile: `stat` can be
 * answered for one file and `open` for another (a swap between the two), a FIFO blocks the reader
 * forever, and a `/proc` file reports size 0 while holding gigabytes. So the file is opened once,
 * non-blocking; the open descriptor is `fstat`ed and anything but a regular file is refused; and
 * at most `maxBytes + 1` bytes (to the next 4 KiB) are read, whatever the size said, so that a longer file is known to
 * be too large without reading the rest.
 *
 * Synchronous: these are small local files, for which a blocking read costs microseconds and a hop
 * through the thread pool tens of them (see local-fs.ts).
 */
export function readBounded(path: string, maxBytes: number): BoundedRead {
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
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return { kind: "directory" };
    if (!info.isFile()) return { kind: "special" };
    if (info.size > maxBytes) return { kind: "too-large", limit: maxBytes };
    const bytes = readUpTo(fd, maxBytes + 1, info.size);
    if (bytes.length > maxBytes) return { kind: "too-large", limit: maxBytes };
    return { kind: "found", bytes, info };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") return { kind: "directory" };
    return { kind: "unreadable", error };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads until end of file or at least `limit` bytes. Kernel-made files (`/proc`, `/sys`) may refuse
 * reads that are not whole records (the page map answers EINVAL to a read of 8k+1 bytes), so every
 * read asks for whole 4 KiB blocks: first what the file claims and one byte more (a `/proc` file
 * claims 0), then twice as much after a full read, or one block after a short one, which is
 * usually the end.
 */
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
  // One chunk mostly used is kept as it is; anything else is copied, so a cached small file does
  // not pin a large buffer.
  return chunks.length === 1 && length + 4096 > (chunks[0] as Buffer).buffer.byteLength
    ? (chunks[0] as Buffer)
    : Buffer.concat(chunks, length);
}
