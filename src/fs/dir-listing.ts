import type { Dirent } from "node:fs";
import { type CachedFileReader, describeFsError } from "./cached-file.ts";
import { readdir, statIfExists } from "./local-fs.ts";
import { type PathStamp, pathStampOf, samePathStamp } from "./path-stamp.ts";
import { StampedCache } from "./stamped-cache.ts";

/** One directory's entries by name: regular files, subdirectories, and symbolic links apart. */
export interface DirEntries {
  files: readonly string[];
  dirs: readonly string[];
  links: readonly string[];
}

export type DirRead =
  | { kind: "found"; entries: DirEntries; stamp: PathStamp }
  | { kind: "missing" }
  | { kind: "unreadable"; cause: string };

const caches = new WeakMap<CachedFileReader, StampedCache<DirEntries, PathStamp>>();

/**
 * The entries of a directory under `.git` (`refs/heads/…`, `worktrees/`), read again only when its
 * stamp changed. Creating, deleting or renaming an entry changes its directory's stamp, and git
 * writes refs and worktree records through files renamed into place, so an unchanged stamp (once
 * settled, see `RACY_WINDOW_MS`) means unchanged entries: one `stat` instead of an open, reads and
 * a close. Shares the file reader's lifetime and clock.
 */
export async function listDirectory(path: string, files: CachedFileReader): Promise<DirRead> {
  let cache = caches.get(files);
  if (cache === undefined) {
    cache = new StampedCache(4096, files.now);
    caches.set(files, cache);
  }
  let info: Awaited<ReturnType<typeof statIfExists>>;
  try {
    info = await statIfExists(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return { kind: "missing" };
    return { kind: "unreadable", cause: describeFsError(error) };
  }
  if (info === undefined || !info.isDirectory()) return { kind: "missing" };
  // Stamped before reading: a change in between gives the next `stat` a newer stamp.
  const stamp = pathStampOf(path, info);
  const cached = cache.get(path, (previous) => samePathStamp(previous, stamp));
  if (cached !== undefined) return { kind: "found", entries: cached, stamp };
  let entries: Dirent[];
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Removed since the `stat`: nothing in it.
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "unreadable", cause: describeFsError(error) };
  }
  const names: string[] = [];
  const dirs: string[] = [];
  const links: string[] = [];
  for (const entry of entries) {
    if (entry.isFile()) names.push(entry.name);
    else if (entry.isDirectory()) dirs.push(entry.name);
    else if (entry.isSymbolicLink()) links.push(entry.name);
  }
  const listed: DirEntries = { files: names, dirs, links };
  cache.set(path, listed, [stamp]);
  return { kind: "found", entries: listed, stamp };
}
