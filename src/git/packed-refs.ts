import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import { type CachedFileReader, decodeUtf8 } from "../fs/cached-file.ts";
import { unreadable } from "./hints.ts";
import { leadingOid } from "./oid.ts";
import { checkRefnameFormat } from "./refname.ts";

export interface PackedRef {
  oid: string;
  /** The object an annotated tag ultimately points to (a `^<oid>` line after the tag's line). */
  peeled?: string;
}

const NEWLINE = 0x0a;

/**
 * Parses `packed-refs`: an optional `# pack-refs with: <traits>` header, then `<oid> <refname>`
 * lines, each optionally followed by a `^<oid>` line giving the peeled tag. Lines git would reject
 * (bad oid, bad ref name, a stray `^` line) and names that are not UTF-8 are skipped rather than
 * failing the whole file, so one odd ref cannot hide every other branch.
 */
export function parsePackedRefs(bytes: Uint8Array): Map<string, PackedRef> {
  const refs = new Map<string, PackedRef>();
  let last: PackedRef | null = null;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    const line = decodeUtf8(bytes.subarray(start, end));
    start = end + 1;
    if (line?.startsWith("#")) continue;
    const previous = last;
    last = null;
    if (line === null) continue;
    if (line.startsWith("^")) {
      const peeled = leadingOid(line.slice(1));
      if (previous !== null && peeled !== null && peeled.length === line.length - 1) previous.peeled = peeled;
      continue;
    }
    const oid = leadingOid(line);
    if (oid === null || line.charAt(oid.length) !== " ") continue;
    const refname = line.slice(oid.length + 1);
    if (checkRefnameFormat(refname) !== null) continue;
    const ref: PackedRef = { oid };
    refs.set(refname, ref);
    last = ref;
  }
  return refs;
}

/** The repository's packed refs (`<commonDir>/packed-refs`); a missing file means none are packed. */
export async function readPackedRefs(
  commonDir: string,
  files: CachedFileReader,
): Promise<Result<ReadonlyMap<string, PackedRef>>> {
  const path = join(commonDir, "packed-refs");
  const read = await files.read(path, "git:packed-refs", parsePackedRefs);
  if (read.kind === "unreadable") return unreadable(path, read.cause);
  return ok(read.kind === "found" ? read.value : new Map());
}
