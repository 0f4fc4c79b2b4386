import { dirname, join, sep } from "node:path";
import type { Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { type PathStamp, stampPath, unchangedPath } from "../fs/path-stamp.ts";
import { StampedCache } from "../fs/stamped-cache.ts";
import { discoverRepository, type RepoLocation } from "./discover.ts";

const CAPACITY = 64;
const caches = new WeakMap<CachedFileReader, StampedCache<RepoLocation, PathStamp>>();

/**
 * `discoverRepository` for the serving path, which opens the same repository on every tool call.
 * A full discovery costs two `realpath`s and a dozen `stat`s and reads; the answer is kept with the
 * stamps of every directory and file it rests on, and reused while none of them changed (a handful
 * of `stat`s). Every way a discovery can come out differently shows in those stamps: git replaces
 * HEAD, config and the ref files by renaming, which changes their directory's mtime; a `.git`
 * appearing in a directory between the start and the work tree changes that directory; deleting or
 * moving the repository makes a `stat` fail or change identity; a config edited in place changes
 * its own stamp. Stamps taken within seconds of a change are not trusted (`RACY_WINDOW_MS`). Tied to
 * the file reader, whose clock it shares, so it lives and dies with the process's file cache.
 */
export async function discoverRepositoryCached(
  startDir: string,
  files: CachedFileReader,
): Promise<Result<RepoLocation>> {
  let cache = caches.get(files);
  if (cache === undefined) {
    cache = new StampedCache(CAPACITY, files.now);
    caches.set(files, cache);
  }
  const hit = cache.get(startDir, unchangedPath);
  if (hit !== undefined) return { ok: true, value: hit };
  cache.delete(startDir);
  const found = await discoverRepository(startDir, files);
  if (found.ok) {
    const stamps = stampsFor(startDir, found.value);
    if (stamps !== null) cache.set(startDir, found.value, stamps);
  }
  return found;
}

/**
 * The paths a discovery from `startDir` depended on, stamped now; `null` (do not cache) for the
 * unusual layouts — a start outside the work tree, a work tree named by `core.worktree` — whose
 * inputs these stamps would not cover.
 */
function stampsFor(startDir: string, location: RepoLocation): PathStamp[] | null {
  const { workTree, gitDir, commonDir } = location;
  if (workTree === null) return null;
  const startStamp = stampPath(startDir);
  if (startStamp === null) return null;
  const paths = new Set<string>();
  // The walk up went through these directories; each one's mtime changes if it gains a `.git`.
  // `startDir` may be a symlink to the work tree: its stamp (taken through the link) is the
  // work tree's, and the canonical walk starts at the work tree itself.
  let dir = startStamp.ino === stampPath(workTree)?.ino ? workTree : startDir;
  for (;;) {
    paths.add(dir);
    if (dir === workTree) break;
    const parent = dirname(dir);
    if (parent === dir || !dir.startsWith(workTree + sep)) return null;
    dir = parent;
  }
  paths.add(join(workTree, ".git"));
  paths.add(gitDir);
  paths.add(commonDir);
  paths.add(join(commonDir, "config"));
  // Started at the work tree itself (the usual case), the start needs no stamp of its own: moving,
  // deleting or replacing it changes the stamp of the `.git` inside.
  if (startDir === workTree) paths.delete(workTree);
  const stamps = startDir === workTree ? [] : [startStamp];
  for (const path of paths) {
    if (path === startDir) continue;
    const taken = stampPath(path);
    if (taken === null) return null;
    stamps.push(taken);
  }
  return stamps;
}
