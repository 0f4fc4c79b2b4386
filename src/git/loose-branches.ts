import { join, sep } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { type CachedFileReader, decodeUtf8 } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { readdir } from "../fs/local-fs.ts";
import { type PathStamp, unchangedPath } from "../fs/path-stamp.ts";
import { StampedCache } from "../fs/stamped-cache.ts";
import { sortBytewise } from "./bytewise.ts";
import { unreadableHint } from "./hints.ts";
import { checkRefnameFormat } from "./refname.ts";

const HEADS = "refs/heads/";

/**
 * The last listing under each refs/heads read lately, with the stamps of every directory in it:
 * reused while all of them are unchanged (one `stat` each). After `git branch x` only the
 * directory that changed is read again (`listDirectory` keeps each directory's entries).
 */
const listings = new WeakMap<CachedFileReader, StampedCache<string[], PathStamp>>();

/**
 * Short names of the loose branches under `headsDir` (`<commonDir>/refs/heads`), sorted by UTF-8
 * bytes as git sorts them. Refs are listed by name only, never opened one by one, so this stays
 * fast with thousands of branches; while nothing changed the very same array is returned.
 */
export async function listLooseBranches(headsDir: string, files: CachedFileReader): Promise<Result<string[]>> {
  let cache = listings.get(files);
  if (cache === undefined) {
    cache = new StampedCache(16, files.now);
    listings.set(files, cache);
  }
  const hit = cache.get(headsDir, unchangedPath);
  if (hit !== undefined) return ok(hit);

  const names: string[] = [];
  const stamps: PathStamp[] = [];
  let complete = true;
  let lossy = false;
  const pending: { path: string; prefix: string }[] = [{ path: headsDir, prefix: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, prefix } = next;
    const read = await listDirectory(path, files);
    if (read.kind === "unreadable") {
      return err(toolError("internal", `Cannot list ${path}: ${read.cause}`, unreadableHint(path)));
    }
    if (read.kind === "missing") {
      // No refs/heads at all is no loose branch; a subdirectory gone since its parent was read is
      // a listing not worth keeping.
      if (path === headsDir) return ok([]);
      complete = false;
      continue;
    }
    stamps.push(read.stamp);
    for (const file of read.entries.files) {
      const name = prefix + file;
      // `<ref>.lock` files exist while git updates `<ref>`; invalid names (such as dotfiles left by
      // editors) are skipped by git's loose-ref iterator too.
      if (checkRefnameFormat(HEADS + name) !== null) continue;
      if (name.includes("\uFFFD")) lossy = true;
      names.push(name);
    }
    for (const dir of read.entries.dirs) pending.push({ path: join(path, dir), prefix: `${prefix}${dir}/` });
  }

  sortBytewise(names);
  const listed = lossy ? await dropUndecodable(headsDir, names) : names;
  const previous = cache.recent(headsDir);
  const result = previous !== undefined && sameNames(previous, listed) ? previous : listed;
  if (complete) cache.set(headsDir, result, stamps);
  else cache.delete(headsDir);
  return ok(result);
}

/** Two name lists with the same names in the same order (the same array, at once). */
export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * File names that are not UTF-8 come back from `readdir` with U+FFFD in place of the bad bytes,
 * naming a branch that does not exist. Such names are rare, so only then are the raw names read
 * to tell a real U+FFFD from a replaced byte.
 */
async function dropUndecodable(headsDir: string, names: string[]): Promise<string[]> {
  let raw: Buffer[];
  try {
    raw = await readdir(headsDir, { recursive: true, encoding: "buffer" });
  } catch {
    return names.filter((name) => !name.includes("\uFFFD"));
  }
  const decodable = new Set<string>();
  for (const path of raw) {
    const text = decodeUtf8(path);
    if (text !== null) decodable.add(sep === "/" ? text : text.split(sep).join("/"));
  }
  return names.filter((name) => !name.includes("\uFFFD") || decodable.has(name));
}
