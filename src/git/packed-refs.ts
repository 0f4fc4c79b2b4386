import { closeSync, readSync } from "node:fs";
import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import { openBounded } from "../fs/bounded-read.ts";
import { decodeUtf8, whyUnreadable } from "../fs/cached-file.ts";
import { unreadable } from "./hints.ts";
import { checkRefnameFormat } from "./refname.ts";

/** The cap every parsed repository file has: an unsorted file is scanned whole. */
const MAX_PACKED_REFS_BYTES = 64 * 1024 * 1024;
/** Bytes read at a time when scanning; a longer line is not one git writes (it is skipped). */
const CHUNK_BYTES = 64 * 1024;
/** Bytes read at each step of the bisection: many whole lines of git's own. */
const WINDOW_BYTES = 4096;

/** git's own `isspace`: space, tab, LF, CR — not vertical tab or form feed. */
export const GIT_SPACE = " \t\n\r";

/** The SHA-1 or SHA-256 object name starting `text`, lower-cased, when followed by nothing or whitespace. */
export function leadingOid(text: string): string | null {
  const hex = /^[0-9a-f]*/i.exec(text)?.[0] ?? "";
  if (hex.length !== 40 && hex.length !== 64) return null;
  return hex.length === text.length || GIT_SPACE.includes(text.charAt(hex.length)) ? hex.toLowerCase() : null;
}

type PackedRef = { refname: string; oid: string };
/** Filled in when given: how many bytes the lookup read (tests show it is a bisection, not a scan). */
type ReadStats = { bytesRead: number };

/** `packed-refs`, read by offset through one descriptor; `sorted`: its header has git's `sorted` trait. */
class PackedRefsFile {
  readonly sorted: boolean;

  constructor(
    readonly fd: number,
    readonly size: number,
    readonly stats: ReadStats,
  ) {
    this.sorted = /^# pack-refs with:[^\n]* sorted[ \n]/.test(decodeUtf8(this.read(0, 256)) ?? "");
  }

  /** Up to `length` bytes at `offset`, fewer at the end of the file. */
  read(offset: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.size - offset)));
    let done = 0;
    for (let n = 1; done < buffer.length && n > 0; done += n) {
      n = readSync(this.fd, buffer, done, buffer.length - done, offset + done);
    }
    this.stats.bytesRead += done;
    return buffer.subarray(0, done);
  }

  /** The lines from `start` (a line's first byte) on, a chunk at a time; a line longer than a chunk is skipped. */
  *lines(start: number): Generator<Buffer> {
    let skipping = false;
    for (let at = start; at < this.size; ) {
      const chunk = this.read(at, CHUNK_BYTES);
      let from = 0;
      for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, from)) {
        if (!skipping) yield chunk.subarray(from, end);
        skipping = false;
        from = end + 1;
      }
      if (at + chunk.length >= this.size || chunk.length === 0) {
        if (from < chunk.length && !skipping) yield chunk.subarray(from);
        return;
      }
      skipping ||= from === 0;
      at += from === 0 ? chunk.length : from;
    }
  }

  /**
   * Where the first line whose name is not below `target` can start, as git's bisection finds it: each step reads
   * a window in the middle and compares the first whole ref line in it. Unsorted files are scanned from the top.
   */
  lowerBound(target: Buffer): number {
    let low = 0;
    let high = this.size;
    while (this.sorted && high - low > CHUNK_BYTES) {
      const middle = low + Math.floor((high - low) / 2);
      const window = this.read(middle, WINDOW_BYTES);
      let line: { start: number; end: number; name: Buffer } | null = null;
      for (let start = window.indexOf(0x0a) + 1; start > 0 && line === null; ) {
        const end = window.indexOf(0x0a, start);
        if (end < 0) break;
        const name = nameOf(window.subarray(start, end));
        if (name !== null) line = { start: middle + start, end: middle + end + 1, name };
        start = end + 1;
      }
      // A window without a whole ref line (lines of git's are far shorter): the scan goes on from `low`.
      if (line === null) break;
      if (Buffer.compare(line.name, target) < 0) low = line.end;
      else high = line.start;
    }
    return low;
  }

  /** The refs whose names start with `prefix` (or equal it, `exact`), in file order; stops past them when sorted. */
  *refs(prefix: string, exact: boolean): Generator<PackedRef> {
    const target = Buffer.from(prefix);
    for (const line of this.lines(this.lowerBound(target))) {
      const name = nameOf(line);
      if (name === null) continue;
      const matches = exact ? name.equals(target) : name.subarray(0, target.length).equals(target);
      if (!matches) {
        if (this.sorted && Buffer.compare(name, target) > 0) return;
        continue;
      }
      const ref = parsePackedLine(line);
      if (ref !== null) yield ref;
    }
  }
}

/** The name part of a line shaped like `<object id> <name>`, unchecked; `null` for headers and peeled lines. */
function nameOf(line: Buffer): Buffer | null {
  const space = line.indexOf(0x20);
  return space === 40 || space === 64 ? line.subarray(space + 1) : null;
}

/** One line of `packed-refs`; `null` for the header, a peeled (`^`) line, or a line git would reject. */
export function parsePackedLine(bytes: Uint8Array): PackedRef | null {
  const line = decodeUtf8(bytes);
  const oid = line === null ? null : leadingOid(line);
  if (line === null || oid === null || line.charAt(oid.length) !== " ") return null;
  const refname = line.slice(oid.length + 1);
  return checkRefnameFormat(refname) === null ? { refname, oid } : null;
}

/**
 * The packed refs named `prefix` (`exact`) or under it (such as `refs/heads/`), in file order: found by bisection
 * and read as one contiguous range when the file is sorted, as git reads it; never a map of every ref.
 */
export function listPackedRefs(
  commonDir: string,
  prefix: string,
  { exact = false, stats = { bytesRead: 0 } } = {},
): Result<PackedRef[]> {
  const path = join(commonDir, "packed-refs");
  const opened = openBounded(path, MAX_PACKED_REFS_BYTES);
  if (opened.kind === "missing") return ok([]);
  if (opened.kind !== "open") return unreadable(path, whyUnreadable(opened));
  try {
    return ok([...new PackedRefsFile(opened.fd, opened.info.size, stats).refs(prefix, exact)]);
  } catch (error) {
    return unreadable(path, whyUnreadable({ kind: "unreadable", error }));
  } finally {
    closeSync(opened.fd);
  }
}

/** The object id packed for `refname`, `null` when it is not; the last line naming it wins, as when git sorts. */
export function findPackedRef(commonDir: string, refname: string, stats?: ReadStats): Result<string | null> {
  const found = listPackedRefs(commonDir, refname, { exact: true, stats });
  return found.ok ? ok(found.value.at(-1)?.oid ?? null) : found;
}
