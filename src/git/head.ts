import { join } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import type { RepoLocation } from "./discover.ts";
import type { RefValue } from "./loose-ref.ts";
import { HEADS, resolveRefChain } from "./refs.ts";

export type Head =
  /** `unborn`: the branch has no commit yet (a new repository, or after `git checkout --orphan`). */
  { kind: "branch"; branch: string; unborn: boolean; oid: string | null } | { kind: "detached"; oid: string };

/**
 * What the worktree at `repo.gitDir` has checked out. A branch that is itself a symbolic ref is
 * followed to its target, as `git status` and `git branch --show-current` do. `stored`: what the
 * HEAD file holds, when discovery has just read it in this call.
 */
export async function readHead(repo: RepoLocation, files: CachedFileReader, stored?: RefValue): Promise<Result<Head>> {
  // One walk of the chain: HEAD's own file is read once, and a chain that stops at HEAD itself
  // means HEAD holds an object id (detached) or is missing.
  const resolved = await resolveRefChain(repo, "HEAD", files, stored);
  if (!resolved.ok) return resolved;
  const { refname, oid } = resolved.value;
  if (refname.startsWith(HEADS)) {
    return ok({ kind: "branch", branch: refname.slice(HEADS.length), unborn: oid === null, oid });
  }
  // HEAD may also name any other ref under refs/ (`git symbolic-ref HEAD refs/remotes/…`); git then
  // behaves as if detached at that ref's commit.
  if (oid !== null) return ok({ kind: "detached", oid });
  if (refname === "HEAD") {
    return err(toolError("no_repo", `${join(repo.gitDir, "HEAD")} is missing`, "Is the repository damaged?"));
  }
  return err(
    toolError(
      "not_found",
      `HEAD points to '${refname}', which is not a branch and does not exist`,
      "Check out a branch.",
    ),
  );
}
