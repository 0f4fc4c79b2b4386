/** What the clone says about a PR: which one twig linked to the checked-out branch, and its head commit. */
import type { Context } from "../core/context.ts";
import { type ErrorCode, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { compareBytewise } from "../git/bytewise.ts";
import { readHead } from "../git/head.ts";
import { resolveRef } from "../git/refs.ts";
import { openWorkspace } from "../repo/workspace.ts";
import { loadState } from "../twig/state.ts";
import { type GitHubTarget, parseRemoteUrl } from "./remote-url.ts";
import { readRemotes } from "./target.ts";

/** Each failure here is answered by passing `pr_number`; `more` says what else helps. */
const fail = (code: ErrorCode, message: string, more?: string) =>
  err(toolError(code, message, `Provide an explicit pr_number parameter.${more ? ` ${more}` : ""}`));

/**
 * The PR a call is about: `pr_number` when given, else the PR twig linked to the checked-out
 * branch (`branches[<branch>].github_pr` in `.twig/state.json`). Unlike upstream, a detached HEAD
 * is reported as such instead of being looked up as a branch named `HEAD`.
 */
export async function resolvePrNumber(ctx: Context, explicit: number | undefined): Promise<Result<number>> {
  if (explicit !== undefined) return ok(explicit);
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) {
    const { code, message, hint } = workspace.error;
    return fail(code, message, `Outside a clone, also pass owner and repo.${hint ? ` ${hint}` : ""}`);
  }
  const head = await readHead(workspace.value.repo, ctx.files);
  if (!head.ok)
    return fail("invalid_params", `No pr_number provided and could not detect current branch: ${head.error.message}`);
  if (head.value.kind === "detached") {
    const at = head.value.oid.slice(0, 12);
    const message = `No pr_number provided and HEAD is detached at ${at}, so there is no current branch to look up`;
    return fail("invalid_params", message, "Or check out the PR's branch.");
  }
  const { branch } = head.value;
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return state;
  const pr = state.value.branches.get(branch)?.github_pr ?? null;
  if (pr === null) {
    const more = `To find an open PR for the branch, call list_pull_requests with head="${branch}".`;
    return fail("not_found", `Branch '${branch}' has no linked GitHub PR`, more);
  }
  return ok(pr);
}

/** What the clone says a PR's head commit probably is (see {@link guessHeadFromClone}). */
export interface CloneHeads {
  /** The branch's remote-tracking ref: what was last pushed or fetched, usually the PR's head. */
  tracking: string | null;
  /** The local branch: the PR's head unless there are commits not yet pushed. */
  local: string | null;
}

const NONE: CloneHeads = { tracking: null, local: null };

/**
 * The commits the clone has for the branch twig linked to PR `number` (the checked-out branch first,
 * else the first such branch by name), so get_pr_status can ask for their checks alongside the PR on
 * a session's first call. Only when a remote names the target repository (a PR number means nothing
 * in another). A guess, confirmed by the PR before use: a clone that cannot say gives none, never an error.
 */
export async function guessHeadFromClone(
  ctx: Pick<Context, "repo" | "files" | "env" | "home" | "platform">,
  target: GitHubTarget,
  number: number,
): Promise<CloneHeads> {
  if (!ctx.repo.ok) return NONE;
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return NONE;
  const remotes = await readRemotes(ctx, ctx.repo.value);
  if (!remotes.ok) return NONE;
  const same = (name: string) => name.toLowerCase();
  const naming = remotes.value.filter((remote) => {
    const parsed = parseRemoteUrl(remote.url);
    return parsed !== null && same(parsed.owner) === same(target.owner) && same(parsed.repo) === same(target.repo);
  });
  if (naming.length === 0) return NONE;

  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return NONE;
  const head = await readHead(workspace.value.repo, ctx.files);
  const current = head.ok && head.value.kind === "branch" ? head.value.branch : null;
  const linked = [...state.value.branches].flatMap(([name, record]) => (record.github_pr === number ? [name] : []));
  const branch = current !== null && linked.includes(current) ? current : linked.sort(compareBytewise)[0];
  if (branch === undefined) return NONE;

  const oidOf = async (refname: string) => {
    const resolved = await resolveRef(workspace.value.repo, refname, ctx.files);
    return resolved.ok ? resolved.value : null;
  };
  let tracking: string | null = null;
  for (const remote of naming) tracking ??= await oidOf(`refs/remotes/${remote.name}/${branch}`);
  return { tracking, local: await oidOf(`refs/heads/${branch}`) };
}
