import type { Dirent } from "node:fs";
import { join, sep } from "node:path";
import { toolError } from "../errors.ts";
import { type CachedFileReader, decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { readdir, statIfExists, statIfExistsSync } from "../fs/local-fs.ts";
import { type FileStamp, StampedCache, sameStamp, stampOf } from "../fs/stamped-cache.ts";
import { err, ok, type Result } from "../result.ts";
import { sortBytewise } from "./bytewise.ts";
import { unreadableHint } from "./hints.ts";
import { checkRefnameFormat } from "./refname.ts";

const HEADS = "refs/heads/";

/** A directory under refs/heads, stamped when its entries were read. */
interface DirStamp extends FileStamp {
  path: string;
  dev: number;
}

/** One directory's entries as last read: its regular files and its subdirectories, by name. */
interface DirEntries {
  files: string[];
  dirs: string[];
}

/**
 * Creating, deleting or renaming an entry changes its directory's stamp, and git writes every ref
 * through a lock file renamed into place. So while a directory's stamp is unchanged (and settled,
 * see `RACY_WINDOW_MS`) its entries are too: the whole listing is reused while every directory
 * is unchanged (one `stat` each), and after `git branch x` only the directory that changed is read
 * again.
 */
interface Caches {
  listings: StampedCache<string[], DirStamp>;
  directories: StampedCache<DirEntries, DirStamp>;
}

const caches = new WeakMap<CachedFileReader, Caches>();

function cachesFor(files: CachedFileReader): Caches {
  let found = caches.get(files);
  if (found === undefined) {
    found = { listings: new StampedCache(16, files.now), directories: new StampedCache(4096, files.now) };
    caches.set(files, found);
  }
  return found;
}

/**
 * Short names of the loose branches under `headsDir` (`<commonDir>/refs/heads`), sorted by UTF-8
 * bytes as git sorts them. Refs are listed by name only, never opened one by one, so this stays
 * fast with thousands of branches; while nothing changed the very same array is returned.
 */
export async function listLooseBranches(headsDir: string, files: CachedFileReader): Promise<Result<string[]>> {
  const { listings, directories } = cachesFor(files);
  const hit = listings.get(headsDir, unchangedDirectory);
  if (hit !== undefined) return ok(hit);

  const names: string[] = [];
  const stamps: DirStamp[] = [];
  let complete = true;
  let lossy = false;
  const pending: { path: string; prefix: string }[] = [{ path: headsDir, prefix: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, prefix } = next;
    const info = await statIfExists(path).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) {
      // No refs/heads at all is no loose branch; a subdirectory gone since its parent was read is
      // a listing not worth keeping.
      if (path === headsDir) return ok([]);
      complete = false;
      continue;
    }
    // Stamped before reading: a change in between gives the next `stat` a newer stamp.
    const stamp: DirStamp = { path, dev: info.dev, ...stampOf(info) };
    stamps.push(stamp);
    let entries = directories.get(path, (previous) => previous.dev === stamp.dev && sameStamp(previous, stamp));
    if (entries === undefined) {
      const read = await readDirectory(path);
      if (!read.ok) return read;
      entries = read.value;
      directories.set(path, entries, [stamp]);
    }
    for (const file of entries.files) {
      const name = prefix + file;
      // `<ref>.lock` files exist while git updates `<ref>`; invalid names (such as dotfiles left by
      // editors) are skipped by git's loose-ref iterator too.
      if (checkRefnameFormat(HEADS + name) !== null) continue;
      if (name.includes("\uFFFD")) lossy = true;
      names.push(name);
    }
    for (const dir of entries.dirs) pending.push({ path: join(path, dir), prefix: `${prefix}${dir}/` });
  }

  sortBytewise(names);
  const listed = lossy ? await dropUndecodable(headsDir, names) : names;
  const previous = listings.recent(headsDir);
  const result = previous !== undefined && sameNames(previous, listed) ? previous : listed;
  if (complete) listings.set(headsDir, result, stamps);
  else listings.delete(headsDir);
  return ok(result);
}

async function readDirectory(path: string): Promise<Result<DirEntries>> {
  let entries: Dirent[];
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Removed since its parent was read: nothing in it.
    if (code === "ENOENT" || code === "ENOTDIR") return ok({ files: [], dirs: [] });
    return err(toolError("internal", `Cannot list ${path}: ${describeFsError(error)}`, unreadableHint(path)));
  }
  const files: string[] = [];
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.isFile()) files.push(entry.name);
    else if (entry.isDirectory()) dirs.push(entry.name);
  }
  return ok({ files, dirs });
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
