import { trimChars } from "../core/plain-text.ts";
import { readBounded } from "../fs/bounded-read.ts";
import { decodeUtf8, describeFsError, type FileRead } from "../fs/cached-file.ts";
import { lstatIfExists, readlink } from "../fs/local-fs.ts";

/** What one ref holds: an object name, or (for HEAD and the like) the name of another ref. */
export type RefValue = { kind: "oid"; oid: string } | { kind: "symbolic"; target: string };

type LooseRead = FileRead<RefValue> | { kind: "malformed" };

/** git's own `isspace`: space, tab, LF, CR — not vertical tab or form feed. */
export const GIT_SPACE = " \t\n\r";

/** The SHA-1 or SHA-256 object name starting `text`, lower-cased, when followed by nothing or whitespace. */
export function leadingOid(text: string): string | null {
  const hex = /^[0-9a-f]*/i.exec(text)?.[0] ?? "";
  if (hex.length !== 40 && hex.length !== 64) return null;
  return hex.length === text.length || GIT_SPACE.includes(text.charAt(hex.length)) ? hex.toLowerCase() : null;
}

/** git's `parse_loose_ref_contents`: `ref: <name>`, or an object name (trailing data allowed); else `null`. */
export function parseLooseRef(bytes: Uint8Array): RefValue | null {
  const text = decodeUtf8(bytes);
  if (text === null) return null;
  // `strbuf_rtrim`, then (after `ref:`) the spaces before the target.
  const trimmed = trimChars(text, GIT_SPACE);
  if (trimmed.startsWith("ref:")) return { kind: "symbolic", target: trimChars(trimmed.slice(4), GIT_SPACE, true) };
  const oid = leadingOid(trimmed);
  return oid === null ? null : { kind: "oid", oid };
}

/** Anything much larger than an object id or `ref: <name>` is not a ref, and is not read to find out. */
const MAX_LOOSE_REF_BYTES = 64 * 1024;

export async function readLooseRef(path: string): Promise<LooseRead> {
  try {
    const info = await lstatIfExists(path);
    // A directory where the ref would be means "no loose ref"; packed-refs is still consulted.
    if (info === undefined || info.isDirectory()) return { kind: "missing" };
    // Old git (core.preferSymlinkRefs) wrote symbolic refs as symlinks such as HEAD -> refs/heads/main.
    if (info.isSymbolicLink()) {
      const target = await readlink(path);
      if (target.startsWith("refs/")) return { kind: "found", value: { kind: "symbolic", target } };
      // git writes no other link; read through, it could be any file (another repository's branch).
      return { kind: "malformed" };
    }
  } catch (error) {
    return absentOrUnreadable(error);
  }
  // One `fstat`ed descriptor: a FIFO or device (HEAD -> /dev/zero) swapped in is refused unread.
  const read = readBounded(path, MAX_LOOSE_REF_BYTES);
  if (read.kind === "missing" || read.kind === "directory") return { kind: "missing" };
  if (read.kind === "unreadable") return absentOrUnreadable(read.error);
  const parsed = read.kind === "found" ? parseLooseRef(read.bytes) : null; // special or too large: not a ref
  return parsed === null ? { kind: "malformed" } : { kind: "found", value: parsed };
}

function absentOrUnreadable(error: unknown): LooseRead {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return { kind: "missing" };
  return { kind: "unreadable", cause: describeFsError(error) };
}
