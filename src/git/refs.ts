import type { Dirent } from "node:fs";
import { join, sep } from "node:path";
import { toolError } from "../errors.ts";
import { type CachedFileReader, decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { readdir, statIfExists, statIfExistsSync } from "../fs/local-fs.ts";
import { type FileStamp, StampedCache, sameStamp, stampOf } from "../fs/stamped-cache.ts";
import { err, ok, type Result } from "../result.ts";
import { compareBytewise, sortBytewise } from "./bytewise.ts";
import type { RepoLocation } from "./discover.ts";
import { unreadableHint } from "./hints.ts";
import { type PackedRef, readPackedRefs } from "./packed-refs.ts";
import { resolveRefChain } from "./ref-store.ts";
import { checkRefnameFormat } from "./refname.ts";

const HEADS = "refs/heads/";

/**
 * Short names of all local branches, loose and packed, sorted by UTF-8 bytes as git sorts them.
 * Loose refs are listed by name only (one recursive directory read), never opened one by one, so
 * this stays fast with thousands of branches. While neither the loose names nor packed-refs
 * changed, the very same array is returned, so callers can tell "unchanged" by identity.
 */
export async function listLocalBranches(repo: RepoLocation, files: CachedFileReader): Promise<Result<string[]>> {
  const loose = await listLooseBranchesCached(join(repo.commonDir, "refs", "heads"), files);
  if (!loose.ok) return loose;
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  const packedNames = packedBranches(packed.value);
  const last = mergedLists.get(loose.value);
  if (last?.packed === packedNames) return ok(last.merged);
  const merged = mergeSorted(loose.value, packedNames);
  mergedLists.set(loose.value, { packed: packedNames, merged });
  return ok(merged);
}

/** The last merge of one loose listing, with the packed list it was merged with. */
const mergedLists = new WeakMap<readonly string[], { packed: readonly string[]; merged: string[] }>();

/** A directory under refs/heads, stamped when its entries were listed. */
interface DirStamp extends FileStamp {
  path: string;
  dev: number;
}

/**
 * The sorted loose branch names under each refs/heads directory read lately, with the stamps of
 * every directory in the tree. Creating, deleting or renaming an entry changes its directory's
 * stamp, and git writes every ref through a lock file renamed into place, so unchanged directory
 * stamps (once settled, see `RACY_WINDOW_MS`) mean unchanged names: one `stat` per directory
 * instead of reading them all and checking every name again.
 */
const looseListings = new WeakMap<CachedFileReader, StampedCache<string[], DirStamp>>();

async function listLooseBranchesCached(headsDir: string, files: CachedFileReader): Promise<Result<string[]>> {
  let cache = looseListings.get(files);
  if (cache === undefined) {
    cache = new StampedCache(16, files.now);
    looseListings.set(files, cache);
  }
  const hit = cache.get(headsDir, unchangedDirectory);
  if (hit !== undefined) return ok(hit);
  const listed = await listLooseBranches(headsDir);
  if (!listed.ok) {
    cache.delete(headsDir);
    return listed;
  }
  // Stamped after the listing: a directory changed in between has a change time of now, which
  // is never settled, so that listing is not trusted on the next call.
  const stamps = await stampDirectories([headsDir, ...listed.value.directories]);
  const previous = cache.recent(headsDir);
  const names = previous !== undefined && sameNames(previous, listed.value.names) ? previous : listed.value.names;
  if (stamps === null) cache.delete(headsDir);
  else cache.set(headsDir, names, stamps);
  return ok(names);
}

async function stampDirectories(paths: readonly string[]): Promise<DirStamp[] | null> {
  const stamps: DirStamp[] = [];
  for (const path of paths) {
    const info = await statIfExists(path).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) return null;
    stamps.push({ path, dev: info.dev, ...stampOf(info) });
  }
  return stamps;
}

function unchangedDirectory(previous: DirStamp): boolean {
  let info: ReturnType<typeof statIfExistsSync>;
  try {
    info = statIfExistsSync(previous.path);
  } catch {
    return false;
  }
  return info !== undefined && info.dev === previous.dev && sameStamp(stampOf(info), previous);
}

/** Two name lists with the same names in the same order (the same array, at once). */
export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The branches of one parsed packed-refs file, sorted; worked out once per file content. */
const packedBranchLists = new WeakMap<ReadonlyMap<string, PackedRef>, string[]>();

function packedBranches(packed: ReadonlyMap<string, PackedRef>): string[] {
  let names = packedBranchLists.get(packed);
  if (names === undefined) {
    names = [];
    for (const refname of packed.keys()) {
      if (refname.startsWith(HEADS)) names.push(refname.slice(HEADS.length));
    }
    sortBytewise(names);
    packedBranchLists.set(packed, names);
  }
  return names;
}

/** Two byte-wise sorted lists as one, each name once (a branch may be both loose and packed). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (compareBytewise(x, y) < 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as string);
  while (j < b.length) out.push(b[j++] as string);
  return out;
}

/** The object id `refname` (a full name such as `refs/heads/main`, or `HEAD`) resolves to; `null` when absent. */
export async function resolveRef(
  repo: RepoLocation,
  refname: string,
  files: CachedFileReader,
): Promise<Result<string | null>> {
  const resolved = await resolveRefChain(repo, refname, files);
  return resolved.ok ? ok(resolved.value.oid) : resolved;
}

/** The loose branch names under `headsDir`, sorted, and every directory below it. */
async function listLooseBranches(headsDir: string): Promise<Result<{ names: string[]; directories: string[] }>> {
  let entries: Dirent[];
  try {
    entries = await readdir(headsDir, { recursive: true, withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return ok({ names: [], directories: [] });
    return err(toolError("internal", `Cannot list ${headsDir}: ${describeFsError(error)}`, unreadableHint(headsDir)));
  }
  const names: string[] = [];
  const directories: string[] = [];
  let lossy = false;
  for (const entry of entries) {
    if (entry.isDirectory()) {
      directories.push(join(entry.parentPath, entry.name));
      continue;
    }
    if (!entry.isFile()) continue;
    const name = branchNameOf(headsDir, entry);
    // `<ref>.lock` files exist while git updates `<ref>`; invalid names (such as dotfiles left by
    // editors) are skipped by git's loose-ref iterator too.
    if (name === null || checkRefnameFormat(HEADS + name) !== null) continue;
    if (name.includes("\uFFFD")) lossy = true;
    names.push(name);
  }
  return ok({ names: sortBytewise(lossy ? await dropUndecodable(headsDir, names) : names), directories });
}

function branchNameOf(headsDir: string, entry: Dirent): string | null {
  const parent = entry.parentPath;
  if (parent === headsDir) return entry.name;
  if (!parent.startsWith(headsDir + sep)) return null;
  const dir = parent.slice(headsDir.length + 1);
  return `${sep === "/" ? dir : dir.split(sep).join("/")}/${entry.name}`;
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
