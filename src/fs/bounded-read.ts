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

/** The first read's buffer for a file whose size says nothing (a `/proc` file says 0). */
const FIRST_CHUNK = 16 * 4096;

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
 * Kernel-made files (`/proc`, `/sys`) may refuse reads that are not whole records (the page map
 * answers EINVAL to a read of 8k+1 bytes), so every read asks for a multiple of this, and the last
 * may run past `limit` by less than one block.
 */
const READ_BLOCK = 4096;

/** Reads until end of file or at least `limit` bytes, growing the buffer from the size the file claims. */
function readUpTo(fd: number, limit: number, claimedSize: number): Uint8Array {
  const ceiling = Math.ceil(limit / READ_BLOCK) * READ_BLOCK;
  // Room for the claimed size and one more block, so the read that finds the end needs no growth: a
  // 41-byte loose ref gets 8 KiB, not 64 KiB (allocating the big buffer was most of a small read).
  const wanted = (Math.ceil((claimedSize + 1) / READ_BLOCK) + 1) * READ_BLOCK;
  let buffer = Buffer.allocUnsafe(Math.min(ceiling, claimedSize === 0 ? FIRST_CHUNK : wanted));
  let length = 0;
  while (length < limit) {
    if (buffer.length - length < READ_BLOCK) {
      const grown = Buffer.allocUnsafe(Math.min(ceiling, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const room = buffer.length - length;
    // Only after a short read (a file still being written) can less than one block be left.
    const n = readSync(fd, buffer, length, room >= READ_BLOCK ? room - (room % READ_BLOCK) : room, null);
    if (n === 0) break;
    length += n;
  }
  // A copy when most of the buffer went unused, so a cached small file does not pin 64 KiB.
  return buffer.length - length > 4096 ? new Uint8Array(buffer.subarray(0, length)) : buffer.subarray(0, length);
}
