import * as v from "valibot";
import type { BranchCommits } from "../../git/commits/branch-commits.ts";
import type { TwigState } from "../../twig/state.ts";

/**
 * What a branch needs next, judged parents first: `clean_up` (its PR merged), `move` (its parent merged or gone:
 * onto `onto`), `restack` (behind its parent), `follow` (its parent is about to move), `forget` (twig tracks it, git
 * has no such branch).
 */
export const ActionSchema = v.object({
  kind: v.picklist(["clean_up", "move", "restack", "follow", "forget"]),
  onto: v.optional(v.string()),
  /** The PR whose base is to be retargeted onto `onto`. */
  retarget: v.optional(v.number()),
  why: v.string(),
});
export type Action = v.InferOutput<typeof ActionSchema>;

/** One command for the user to run (the server never runs it), parents before children. */
export const StepSchema = v.object({ branch: v.string(), what: v.string(), why: v.string(), command: v.string() });
export type Step = v.InferOutput<typeof StepSchema>;

/** What the plan reads of a branch: its twig parent, its PR, its commits; `gone`: tracked by twig, not in git. */
export interface BranchFacts {
  branch: string;
  gone?: boolean;
  tracked: boolean;
  pr?: { number?: number; state?: string; base?: string };
  commits?: BranchCommits;
}

/** A shell word: branch names may hold characters a shell reads. */
const sh = (word: string) => (/^[\w./@+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * Each branch's action (in `facts`' order: parents before children) and the steps to take. `isLocal` says whether a
 * branch exists in git; `root` is where a stack goes when every ancestor is merged.
 */
export function planStack(
  facts: readonly BranchFacts[],
  state: TwigState,
  isLocal: (branch: string) => boolean,
  root: string | null,
): { actions: Array<Action | undefined>; steps: Step[] } {
  const byName = new Map(facts.map((fact) => [fact.branch, fact]));
  const parentOf = (branch: string) => state.parentsOf(branch).find((parent) => parent !== branch);
  const merged = (branch: string) => !isLocal(branch) || byName.get(branch)?.pr?.state === "merged";
  const actions = new Map<string, Action>();
  const steps: Step[] = [];
  for (const fact of facts) {
    const { branch, pr, commits } = fact;
    const b = sh(branch);
    const step = (what: string, why: string, command: string) => steps.push({ branch, what, why, command });
    const parent = parentOf(branch);
    let action: Action | undefined;
    if (fact.gone) {
      action = { kind: "forget", why: "twig tracks it, but git has no such branch" };
      step("forget", action.why, "twig sync");
    } else if (pr?.state === "merged") {
      action = { kind: "clean_up", why: `its PR #${pr.number} is merged` };
      // A squash merge leaves the branch unmerged in git's eyes: -d would refuse it.
      step("delete the branch", `${action.why}; twig sync then forgets it`, `git branch -D ${b} && twig sync`);
    } else if (fact.tracked && parent !== undefined && merged(parent)) {
      const seen = new Set([branch]);
      let onto: string | undefined = parent;
      while (onto !== undefined && merged(onto) && !seen.has(onto)) {
        seen.add(onto);
        onto = parentOf(onto);
      }
      if (onto === undefined || seen.has(onto)) onto = root ?? undefined;
      if (onto !== undefined) {
        const why = isLocal(parent) ? `its parent ${parent} is merged` : `its parent ${parent} is gone from git`;
        const open = pr?.number !== undefined && (pr.state === "open" || pr.state === "draft");
        const retarget = open && pr.base !== onto ? pr.number : undefined;
        action = { kind: "move", onto, ...(retarget !== undefined && { retarget }), why };
        const o = sh(onto);
        // --onto the old parent replays only the branch's own commits, not a squash-merged parent's.
        const rebase = isLocal(parent) ? `git rebase --onto ${o} ${sh(parent)} ${b}` : `git rebase ${o} ${b}`;
        const commands = [`twig branch depend ${b} ${o} --exclusive`, rebase];
        if (retarget !== undefined) commands.push(`gh pr edit ${retarget} --base ${o}`);
        step(`move onto ${onto}${retarget !== undefined ? `, retarget #${retarget}` : ""}`, why, commands.join(" && "));
      }
    } else if (fact.tracked && parent !== undefined && actions.has(parent)) {
      const kind = actions.get(parent)?.kind;
      if (kind === "move" || kind === "restack" || kind === "follow") {
        action = { kind: "follow", onto: parent, why: `its parent ${parent} is about to move` };
        step(`restack onto ${parent}`, `after ${parent} moves`, `git switch ${b} && twig rebase`);
      }
    }
    if (action === undefined && fact.tracked && commits?.needs_restack && commits.base !== undefined) {
      action = {
        kind: "restack",
        onto: commits.base,
        why: `${commits.behind === undefined ? "some commits" : commitCount(commits.behind)} behind ${commits.base}`,
      };
      step(`restack onto ${commits.base}`, action.why, `git switch ${b} && twig rebase`);
    }
    if (action !== undefined) actions.set(branch, action);
    // Pushing waits for a move or restack, which rewrites the commits anyway.
    const push = commits?.push;
    if (action === undefined && push !== undefined && !fact.gone) {
      if ("missing" in push && (commits?.ahead ?? 0) > 0) {
        step("push", "it has never been pushed", `git push -u origin ${b}`);
      } else if ("unpushed" in push && push.unpushed > 0) {
        step("push", `${commitCount(push.unpushed)} not pushed`, `git push`);
      }
    }
  }
  return { actions: facts.map((fact) => actions.get(fact.branch)), steps };
}

const commitCount = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;

/** The line's words for an action, push state and a PR head that is not the local tip. */
export function stateWords(action: Action | undefined, commits: BranchCommits | undefined): string[] {
  const words: string[] = [];
  if (action !== undefined) {
    const where = action.onto === undefined ? "" : ` onto ${action.onto}`;
    const verb = {
      clean_up: "merged: clean up",
      move: `move${where}`,
      restack: `restack${where}`,
      follow: `restack after${where.replace(" onto", "")}`,
      forget: "gone from git: twig sync forgets it",
    }[action.kind];
    words.push(action.retarget === undefined ? verb : `${verb}, retarget #${action.retarget}`);
  }
  const push = commits?.push;
  if (push !== undefined) {
    if ("missing" in push) words.push("no remote branch");
    else if (push.unpushed > 0) words.push(`${push.unpushed} unpushed`);
  }
  const prHead = commits?.pr_head;
  if (prHead !== undefined && prHead.local_ahead > 0) {
    words.push(`PR CI/reviews are for an older commit (${prHead.local_ahead} behind local)`);
  }
  return words;
}
