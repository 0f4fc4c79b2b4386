import type { Context } from "../core/context.ts";
import { compareBytewise } from "../git/bytewise.ts";
import { readHead } from "../git/head.ts";
import { resolveRef } from "../git/refs.ts";
import { openWorkspace } from "../repo/workspace.ts";
import { loadState } from "../twig/state.ts";
import { parseRemoteUrl } from "./remote-url.ts";
import { type GitHubTarget, readRemotes } from "./target.ts";

/** What the clone says a PR's head commit probably is (see {@link guessHeadFromClone}). */
export interface CloneHeads {
  /** The branch's remote-tracking ref: what was last pushed or fetched, usually the PR's head. */
  tracking: string | null;
  /** The local branch: the PR's head unless there are commits not yet pushed. */
  local: string | null;
}

const NONE: CloneHeads = { tracking: null, local: null };

/**
 * The commits the clone has for the branch twig linked to PR `number` (`github_pr`; the checked-out
 * branch first, else the first such branch by name), so get_pr_status can ask for that commit's
 * checks alongside the PR on a session's first call. Only when one of the clone's remotes names the
 * target repository: a PR number means nothing in another one. It is only a guess, confirmed by
 * the PR before anything asked with it is used; a clone that cannot say gives no guess, never an error.
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
