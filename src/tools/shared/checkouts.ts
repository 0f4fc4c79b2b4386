import { basename, dirname } from "node:path";
import type { Context } from "../../core/context.ts";
import { readEffectiveConfig } from "../../git/config.ts";
import type { DiscoveredRepo } from "../../git/discover.ts";
import { type Head, readHead, resolveRef } from "../../git/refs.ts";
import { listLinkedWorktrees, readLinkedHead } from "../../git/worktrees.ts";
import { stateFileFor } from "../../twig/state.ts";

/** Where a plan runs and what each work tree has checked out: a step must not switch one to a branch of another. */
export interface Checkouts {
  /** The work tree the call is about: steps run from here. */
  cwd: string;
  /** Its branch, `null` when detached (then `cwdHead` is the commit). */
  cwdBranch: string | null;
  cwdHead: string;
  /** Each checked-out branch's work tree, the main checkout included. */
  at: Map<string, string>;
  /** The work tree whose `.twig/state.json` the call read: twig's `-r`. */
  stateRoot: string;
  /** `branch.<name>.remote`, when it names a remote. */
  remoteOf: (branch: string) => string | undefined;
  /** The remote-tracking ref's commit (its own remote's, else origin's) of each gone branch asked: its last known tip. */
  tips: Map<string, string>;
  /** New bases whose name git resolves to another ref first (a tag `main`): that ref, as the forecast found it. */
  shadowed: Map<string, string>;
}

export async function readCheckouts(
  ctx: Pick<Context, "files" | "env" | "home" | "platform">,
  repo: DiscoveredRepo,
  gone: readonly string[],
): Promise<Checkouts> {
  const config = await readEffectiveConfig(repo, ctx);
  const remoteOf = (branch: string) => {
    const remote = config.ok ? config.value.get(`branch.${branch}.remote`) : undefined;
    // `.` is the repository itself: nothing to push to.
    return remote === "." ? undefined : remote;
  };
  const tips = new Map<string, string>();
  for (const branch of gone) {
    const tip = await resolveRef(repo, `refs/remotes/${remoteOf(branch) ?? "origin"}/${branch}`);
    if (tip.ok && tip.value !== null) tips.set(branch, tip.value);
  }
  const at = new Map<string, string>();
  const note = (head: Head | null, path: string) => {
    if (head?.kind === "branch") at.set(head.branch, path);
  };
  const own = await readHead(repo, repo.head);
  const head = own.ok ? own.value : null;
  note(head, repo.workTree);
  const main = dirname(repo.commonDir);
  // A bare repository's worktrees have no main checkout.
  if (repo.isLinkedWorktree && basename(repo.commonDir) === ".git") {
    const location = { ...repo, gitDir: repo.commonDir, workTree: main, isLinkedWorktree: false };
    const head = await readHead(location);
    note(head.ok ? head.value : null, main);
  }
  const linked = await listLinkedWorktrees(repo, ctx.files);
  for (const worktree of linked.ok ? linked.value : []) {
    if (worktree.prunable || worktree.path === repo.workTree) continue;
    note(await readLinkedHead(repo, worktree), worktree.path);
  }
  return {
    cwd: repo.workTree,
    cwdBranch: head?.kind === "branch" ? head.branch : null,
    cwdHead: head?.kind === "detached" ? head.oid : "HEAD",
    at,
    stateRoot: dirname(dirname(await stateFileFor(ctx, repo.workTree))),
    remoteOf,
    tips,
    shadowed: new Map(),
  };
}
