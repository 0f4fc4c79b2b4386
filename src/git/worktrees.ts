import { existsSync } from "node:fs";
import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { compareBytewise } from "./bytewise.ts";
import { type RepoLocation, readWorktreeLink } from "./discover.ts";
import { unreadable, unsupported } from "./hints.ts";
import { type Head, readHead } from "./refs.ts";

export interface LiveWorktree {
  id: string;
  /** The working-tree root git recorded; it may no longer exist (see `prunable`). */
  path: string;
  gitDir: string;
  locked: boolean;
  /** git would remove it on `git worktree prune`: its directory is gone and it is not locked. */
  prunable: boolean;
}

/** More entries than anyone keeps worktrees is a hostile clone: each costs reads on every call. */
const MAX_WORKTREE_ENTRIES = 1_000;

/** The linked worktrees in `<commonDir>/worktrees/` by id; those without a readable `gitdir` skipped, as by git. */
export async function listLinkedWorktrees(
  repo: RepoLocation,
  files: CachedFileReader,
): Promise<Result<LiveWorktree[]>> {
  const adminRoot = join(repo.commonDir, "worktrees");
  const listed = await listDirectory(adminRoot);
  if (listed.kind === "missing") return ok([]);
  if (listed.kind === "unreadable") return unreadable(adminRoot, listed.cause, "list");
  // git reads each entry's `gitdir` through whatever it is, so a symlinked admin dir counts too.
  const ids = [...listed.entries.dirs, ...listed.entries.links];
  if (ids.length > MAX_WORKTREE_ENTRIES) {
    return unsupported(
      `${adminRoot} holds more than ${MAX_WORKTREE_ENTRIES} worktree entries; twig-mcp stops listing there`,
      "`git worktree prune` removes the entries of worktrees whose directories are gone; `git worktree remove` the rest you no longer need.",
    );
  }
  const worktrees: LiveWorktree[] = [];
  for (const id of ids.sort(compareBytewise)) {
    const gitDir = join(adminRoot, id);
    const link = await readWorktreeLink(gitDir, files);
    if (link === null) continue;
    const locked = existsSync(join(gitDir, "locked"));
    worktrees.push({
      id,
      path: link.path,
      gitDir,
      locked,
      // A locked worktree (say, on removable media) is kept even when its directory is missing.
      prunable: !locked && !existsSync(link.dotGit),
    });
  }
  return ok(worktrees);
}

/** What a linked worktree has checked out, `null` when its HEAD cannot be read; apart, as most callers need none. */
export async function readLinkedHead(repo: RepoLocation, worktree: LiveWorktree): Promise<Head | null> {
  const head = await readHead({ ...repo, gitDir: worktree.gitDir, workTree: worktree.path, isLinkedWorktree: true });
  return head.ok ? head.value : null;
}
