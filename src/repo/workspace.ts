import type { Context } from "../core/context.ts";
import type { ToolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { type BranchCommits, type ReadCommitsOptions, readBranchCommits } from "../git/commits/branch-commits.ts";
import { type GitConfig, readEffectiveConfig, remoteUrls } from "../git/config.ts";
import { type DiscoveredRepo, discoverRepository } from "../git/discover.ts";
import { fail } from "../git/hints.ts";
import { readHead } from "../git/refs.ts";
import { divergenceBase } from "../twig/graph.ts";
import type { BranchMetadata } from "../twig/state.ts";
import { loadState, type TwigState } from "../twig/state.ts";

/** Opens the default repository afresh: it may have been deleted or converted since start-up. */
export async function openWorkspace(ctx: Pick<Context, "repo" | "files">): Promise<Result<DiscoveredRepo>> {
  return ctx.repo.ok ? discoverRepository(ctx.repo.value, ctx.files) : ctx.repo;
}

/** The workspace and its twig state, read together by most local tools. */
export async function workspaceAndState(
  ctx: Context,
): Promise<Result<{ workspace: DiscoveredRepo; state: TwigState }>> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return workspace;
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return state;
  return ok({ workspace: workspace.value, state: state.value });
}

/** The checked-out branch, or `not_found` on a detached HEAD (upstream wrongly reports "HEAD"). */
export async function currentBranch(workspace: DiscoveredRepo): Promise<Result<{ branch: string; unborn: boolean }>> {
  const found = await readHead(workspace, workspace.head);
  if (!found.ok) return found;
  const head = found.value;
  if (head.kind === "detached") {
    return fail(
      "not_found",
      "Not on any branch (detached HEAD state)",
      `HEAD is detached at commit ${head.oid}. Check out a branch, or name a branch explicitly.`,
    );
  }
  return ok({ branch: head.branch, unborn: head.unborn });
}

/** Why the checked-out branch has no record to read: no repository, an unreadable HEAD or state, a detached HEAD. */
type NoCheckedOutRecord = { why: "workspace" | "head" | "state"; error: ToolError } | { why: "detached"; oid: string };

/** The checked-out branch and twig's record of it: what a call naming no PR or issue is about. */
export async function checkedOutRecord(
  ctx: Context,
  opened: Promise<Result<DiscoveredRepo>> = openWorkspace(ctx),
): Promise<Result<{ branch: string; record: BranchMetadata | undefined }, NoCheckedOutRecord>> {
  const workspace = await opened;
  if (!workspace.ok) return err({ why: "workspace", error: workspace.error });
  const head = await readHead(workspace.value, workspace.value.head);
  if (!head.ok) return err({ why: "head", error: head.error });
  if (head.value.kind === "detached") return err({ why: "detached", oid: head.value.oid });
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return err({ why: "state", error: state.error });
  return ok({ branch: head.value.branch, record: state.value.branches.get(head.value.branch) });
}

/** The remote-tracking ref a branch pushes to: git's `branch.<name>.remote`/`.merge`, else `origin/<name>`. */
function upstreamOf(config: GitConfig | null, branch: string): string {
  const remote = config?.get(`branch.${branch}.remote`);
  const merge = config?.get(`branch.${branch}.merge`);
  // `.` is the repository itself: a local branch, no remote to push to; `origin` is what `git push -u` would set.
  if (remote !== undefined && remote !== "." && merge?.startsWith("refs/heads/")) {
    return `refs/remotes/${remote}/${merge.slice("refs/heads/".length)}`;
  }
  return `refs/remotes/origin/${branch}`;
}

/**
 * Each branch's tip, drift from its divergence base, push state and (given its PR's head, `prHeads[i]`) how far the
 * PR is from the local tip; an unreadable repository is each one's warning.
 */
export async function branchCommits(
  ctx: Pick<Context, "files" | "env" | "home" | "platform">,
  repo: DiscoveredRepo,
  state: TwigState,
  sorted: readonly string[],
  branches: readonly string[],
  options: ReadCommitsOptions & { prHeads?: ReadonlyArray<string | undefined> } = {},
): Promise<BranchCommits[]> {
  const config = await readEffectiveConfig(repo, ctx);
  const remotes = config.ok && remoteUrls(config.value).length > 0;
  const pairs = branches.map((branch, i) => {
    const prHead = options.prHeads?.[i];
    const base = divergenceBase(sorted, state, branch);
    // A repository with no remote at all has nothing to push to: no "no remote branch" on every line.
    const upstream = remotes ? { upstream: upstreamOf(config.ok ? config.value : null, branch) } : {};
    return { branch, base, ...upstream, ...(prHead && { prHead }) };
  });
  const read = await readBranchCommits(repo, pairs, ctx.files, options);
  return read.ok ? read.value : branches.map(() => ({ commit_warnings: [read.error.message] }));
}
