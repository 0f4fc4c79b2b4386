import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import { type CachedFileReader, decodeUtf8 } from "../fs/cached-file.ts";
import { unreadable } from "./hints.ts";
import { leadingOid } from "./loose-ref.ts";
import { checkRefnameFormat } from "./refname.ts";

const NEWLINE = 0x0a;

/**
 * Parses `packed-refs` into ref name → object id: `<oid> <refname>` lines, after an optional
 * `# pack-refs with: <traits>` header, each possibly followed by a `^<oid>` line giving the peeled
 * tag, which nothing here needs. Lines git would reject (bad oid, bad ref name) and names that are
 * not UTF-8 are skipped rather than failing the whole file, so one odd ref cannot hide every other
 * branch.
 */
export function parsePackedRefs(bytes: Uint8Array): Map<string, string> {
  const refs = new Map<string, string>();
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    const line = decodeUtf8(bytes.subarray(start, end));
    start = end + 1;
    if (line === null) continue;
    // The header and `^` lines start with no object id.
    const oid = leadingOid(line);
    if (oid === null || line.charAt(oid.length) !== " ") continue;
    const refname = line.slice(oid.length + 1);
    if (checkRefnameFormat(refname) === null) refs.set(refname, oid);
  }
  return refs;
}

/** The repository's packed refs (`<commonDir>/packed-refs`); a missing file means none are packed. */
export async function readPackedRefs(
  commonDir: string,
  files: CachedFileReader,
): Promise<Result<ReadonlyMap<string, string>>> {
  const path = join(commonDir, "packed-refs");
  const read = await files.read(path, "git:packed-refs", parsePackedRefs);
  if (read.kind === "unreadable") return unreadable(path, read.cause);
  return ok(read.kind === "found" ? read.value : new Map());
}
