import * as v from "valibot";
import { ASCII_CONTROLS, quoted, visible } from "../../core/plain-text.ts";
import type { BranchCommits } from "../../git/commits/branch-commits.ts";
import { checkBranchName } from "../../git/refname.ts";
import type { PullRequest } from "../../github/pull-request.ts";
import type { TwigState } from "../../twig/state.ts";
import type { BranchPr } from "./branch-pr.ts";
import type { Checkouts } from "./checkouts.ts";

/** A work tree path a step may name in `git -C`: absolute, no control character; invisible ones are checked apart. */
const PLAIN_ABSOLUTE_PATH = new RegExp(`^/[^${ASCII_CONTROLS}]*$`);

/**
 * What a branch needs next, judged parents first: `clean_up` (its PR merged), `move` (its parent merged or gone:
 * onto `onto`), `restack` (behind its parent), `follow` (its parent moves first), `forget` (twig tracks it, git
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

/** What a rewrite will do, before it is run (docs/tools.md, "Restack forecast"): empty lists and zero counts left out. */
const ForecastSchema = v.object({
  result: v.picklist(["clean", "conflicts", "unknown"]),
  unknown: v.optional(v.object({ reason: v.string(), message: v.string() })),
  files: v.optional(
    v.array(
      v.object({
        path: v.string(),
        kind: v.string(),
        lines: v.optional(v.array(v.object({ start: v.number(), end: v.number() }))),
        lines_omitted: v.optional(v.number()),
      }),
    ),
  ),
  files_omitted: v.optional(v.number()),
  undecided: v.optional(v.array(v.object({ path: v.string(), reason: v.string() }))),
  undecided_omitted: v.optional(v.number()),
  dropped: v.optional(v.array(v.string())),
  dropped_omitted: v.optional(v.number()),
  dropped_limited_by: v.optional(v.string()),
});
export type Forecast = v.InferOutput<typeof ForecastSchema>;

/** One command for the user to run (the server never runs it), in order: rewrites parents first, deletes last. */
export const StepSchema = v.object({
  branch: v.string(),
  what: v.string(),
  why: v.string(),
  command: v.string(),
  /** A rewrite's: will it stop for conflicts, and where. */
  forecast: v.optional(ForecastSchema),
});
type Step = v.InferOutput<typeof StepSchema>;

/**
 * A branch's commits moved onto `onto`: those after `oldBase` (a commit id), or without it those `onto` lacks (git's
 * own choice, for a parent that is not rewritten). `worktree`: the work tree that has it checked out.
 */
/** `git`: the command's git, `git -C <work tree>` in the work tree that has the branch checked out. */
type Rewrite = { branch: string; onto: string; oldBase?: string; worktree?: string; git?: string };
/** A step as planned: a rewrite step keeps its parts (for a forecast) beside the command they render to. */
export type PlannedStep = Step & { rewrite?: Rewrite };
/** Each branch's action, in the order of its facts; the steps in the order to run them; why a branch got none. */
export type Plan = { actions: Array<Action | undefined>; steps: PlannedStep[]; warnings: string[] };

/** What the plan reads of a branch: its twig parent, its PR, its commits; `gone`: tracked by twig, not in git. */
export interface BranchFacts {
  branch: string;
  gone?: boolean;
  tracked: boolean;
  /** `ready`: open, approved, CI green or absent; `mergeable`: GitHub's word on a clean merge (`null`: not known). */
  pr?: Partial<Pick<PullRequest, "number" | "base" | "head" | "head_sha" | "mergeable">> & {
    state?: string;
    ready?: boolean;
  };
  commits?: BranchCommits;
  /** `branch.<name>.remote`. */
  remote?: string;
  /** Its remote-tracking ref's commit: a gone branch's last known tip. */
  remote_tip?: string;
  /** Whether its merged PR's head commit is in the local object store: only then can a rebase start from it. */
  pr_head_stored?: boolean;
  /** Where its own commits start when its parent is gone, found by content: the parent's squash on the new base. */
  squashed_base?: string;
}

/** A branch's facts from what the call read: its PR lookup, its commits, its remote and remote-tracking tip. */
export function branchFacts(
  { branch, gone, tracked }: Pick<BranchFacts, "branch" | "gone" | "tracked">,
  found: BranchPr | null | undefined,
  commits: BranchCommits | undefined,
  where: Checkouts,
): BranchFacts {
  const [remote, tip, pr] = [where.remoteOf(branch), where.tips.get(branch), found?.status?.pull_request];
  const facts: BranchFacts = { branch, gone, tracked, ...(commits && { commits }), ...(remote && { remote }) };
  if (tip !== undefined) facts.remote_tip = tip;
  if (pr === undefined) return found?.number === undefined ? facts : { ...facts, pr: { number: found.number } };
  const state = pr.merged ? "merged" : pr.state !== "open" ? "closed" : pr.draft ? "draft" : "open";
  const { review, verdict } = found?.status?.summary ?? {};
  const ready = state === "open" && review === "approved" && (verdict === "passing" || verdict === "no_checks");
  const { number, base, head, head_sha, mergeable } = pr;
  return { ...facts, pr: { number, base, head, head_sha, mergeable, state, ready } };
}

/**
 * Where `child`'s own commits start when its parent is rewritten or merged, or `undefined`: the old tip of `parent`
 * (its facts, if read), i.e. the local branch, else its merged PR's head (when here), else its remote-tracking ref;
 * last, the child's own facts' squash found by content.
 */
function oldBaseOf(parent: BranchFacts | undefined, child: BranchFacts): string | undefined {
  const pr = parent?.pr;
  const merged = pr?.state === "merged" && pr.head === parent?.branch && parent?.pr_head_stored === true;
  const tips = [parent?.gone ? undefined : parent?.commits?.head?.sha, merged ? pr?.head_sha : undefined];
  // GitHub's answer is someone else's text: only a commit id goes into a command.
  return [...tips, parent?.remote_tip, child.squashed_base].find(isCommitId);
}

const NO_OLD_BASE = "its parent's old tip is unknown (no merged PR head here, no remote-tracking ref, no squash found)";

const isCommitId = (sha: string | undefined): sha is string => sha !== undefined && /^[0-9a-f]{40}$/.test(sha);

/** A name as prose shows it: a name git accepts as is; any other quoted as data, clipped. */
export const shown = (name: string) => (checkBranchName(name) === null ? name : quoted(name, 40));

/** Why a name may not go into a step: git refuses it, reads it as an option, or (`git push`) `+b` as a forced update. */
const unsafeName = (name: string) =>
  checkBranchName(name) ?? (name.startsWith("+") ? "starts with '+', which git push reads as a forced update" : null);

/** A shell word: paths and names may hold characters a shell reads (zsh expands a leading `=cmd` to cmd's path). */
const sh = (word: string) => (/^[\w./@+:-][\w./@+:=-]*$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

const commitCount = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;

/**
 * Each branch's action (in `facts`' order: parents before children) and the steps to take, to be run in order from
 * `where.cwd`: rewrites (each in the work tree that has the branch, with its push and twig's new parent), pushes,
 * the way back to the branch the work tree was on, then deletes and twig's tidying. `isLocal` says whether a
 * branch exists in git; `root` is where a stack goes when every ancestor is merged. A name git would refuse, or one
 * starting with `-` or `+`, gets no step: `warnings` says so.
 */
export function planStack(
  facts: readonly BranchFacts[],
  state: TwigState,
  isLocal: (branch: string) => boolean,
  root: string | null,
  where: Checkouts,
): Plan {
  const byName = new Map(facts.map((fact) => [fact.branch, fact]));
  const parentOf = (branch: string) => state.parentsOf(branch).find((parent) => parent !== branch);
  // A twig link to a PR of another branch is not this branch's PR.
  const ownPr = (fact: BranchFacts | undefined) =>
    fact?.pr?.head === undefined || fact.pr.head === fact.branch ? fact?.pr : undefined;
  const merged = (branch: string) => !isLocal(branch) || ownPr(byName.get(branch))?.state === "merged";
  const actions = new Map<string, Action>();
  const rewritten = new Set<string>();
  const [rewrites, pushes, deletes]: [PlannedStep[], PlannedStep[], PlannedStep[]] = [[], [], []];
  const warnings: string[] = [];
  let tidy: string | undefined;
  let leftCwd = false;
  /** Whether a command with these names (by role) would be unsafe: the first such is said once per branch. */
  const said = new Set<string>();
  // A name the reply escapes (`\u{202E}`) would reach git as those escapes: no command can hold it.
  const unsafe = (name: string) => {
    const other = where.shadowed.get(name);
    return (
      unsafeName(name) ??
      (visible(name) === name ? null : "holds an invisible character") ??
      (other === undefined ? null : `is also ${other}, which git rebase would take first`)
    );
  };
  const warned = (names: { branch: string } & Record<string, string>) => {
    const [role, name] = Object.entries(names).find(([, name]) => unsafe(name) !== null) ?? [];
    if (name === undefined || said.has(names.branch)) return name !== undefined;
    said.add(names.branch);
    warnings.push(`No step for ${shown(names.branch)}: ${role} ${quoted(name, 40)} ${unsafe(name)}`);
    return true;
  };
  // twig reads the state of the work tree it runs in (§3.4): a linked one without its own names the right one.
  const twigArgs = where.stateRoot === where.cwd ? "" : ` -r ${sh(where.stateRoot)}`;

  for (const fact of facts) {
    const { branch, commits } = fact;
    const pr = ownPr(fact);
    const parent = parentOf(branch);
    const remote = fact.remote ?? "origin";
    const name = shown(branch);
    let action: Action | undefined;
    let rewrite: Rewrite | undefined;
    /** The names the branch's step would hold, by role: any git would refuse means no step. */
    let names: { branch: string } & Record<string, string> = { branch };
    // A remote git would read as an option spoils every step of its branch, and is said even when none was due.
    if (fact.remote !== undefined && (fact.tracked || pr?.number !== undefined)) {
      names.remote = fact.remote;
      warned(names);
    }
    if (fact.pr !== undefined && pr === undefined) {
      warnings.push(`${name}: twig links PR #${fact.pr.number}, a PR of another branch; relink it (twig sync)`);
    }
    if (fact.gone) {
      action = { kind: "forget", why: "twig tracks it, but git has no such branch" };
      tidy ??= branch;
    } else if (pr?.state === "merged") {
      action = { kind: "clean_up", why: `its PR #${pr.number} is merged` };
      const unverified = deleteBlocker(fact, where);
      if (unverified !== undefined) action.why += `; not deleted: ${unverified}`;
      else if (!warned(names)) {
        deletes.push({ branch, what: "delete the branch", why: action.why, command: `git branch -D -- ${sh(branch)}` });
        tidy ??= branch;
      }
    } else if (fact.tracked && parent !== undefined && merged(parent)) {
      const seen = new Set([branch]);
      let onto: string | undefined = parent;
      while (onto !== undefined && merged(onto) && !seen.has(onto)) {
        seen.add(onto);
        onto = parentOf(onto);
      }
      if (onto === undefined || seen.has(onto)) onto = root ?? undefined;
      if (onto !== undefined) {
        // A parent deleted after its PR merged is said merged: the reason, not the trace.
        const why = `its parent ${shown(parent)} is ${ownPr(byName.get(parent))?.state === "merged" ? "merged" : "gone from git"}`;
        const open = pr?.number !== undefined && (pr.state === "open" || pr.state === "draft");
        const retarget = open && pr.base !== onto ? pr.number : undefined;
        action = { kind: "move", onto, ...(retarget !== undefined && { retarget }), why };
        names = { ...names, "old parent": parent };
        const oldBase = oldBaseOf(byName.get(parent), fact);
        if (oldBase !== undefined) rewrite = { branch, onto, oldBase };
        else if (!warned(names)) action.why += `; no step: ${NO_OLD_BASE}`;
      }
    } else if (fact.tracked && parent !== undefined && rewritten.has(parent)) {
      action = { kind: "follow", onto: parent, why: "its parent moves first" };
      const oldBase = oldBaseOf(byName.get(parent), fact);
      if (oldBase !== undefined) rewrite = { branch, onto: parent, oldBase };
    }
    const ready = pr?.ready === true && pr.mergeable !== false;
    if (action === undefined && fact.tracked && commits?.needs_restack && commits.base !== undefined && !ready) {
      const behind = commits.behind === undefined ? "some commits" : commitCount(commits.behind);
      action = { kind: "restack", onto: commits.base, why: `${behind} behind ${shown(commits.base)}` };
      rewrite = { branch, onto: commits.base };
    }
    if (action !== undefined) actions.set(branch, action);
    const push = commits?.push;
    if (rewrite !== undefined) {
      const worktree = where.at.get(branch);
      if (worktree !== undefined) rewrite.worktree = worktree;
      // The lease: the remote-tracking ref, else (never fetched) the PR's head as GitHub has it.
      const headSha = pr?.head === branch ? pr.head_sha : undefined;
      const lease =
        push !== undefined && !("missing" in push) ? "" : isCommitId(headSha) ? `=${branch}:${headSha}` : undefined;
      // Run here, a rebase is followed by `git switch` back to this work tree's branch: that name too.
      names = { ...names, "new parent": rewrite.onto, ...(lease !== undefined && { remote }) };
      if (worktree === undefined && where.cwdBranch !== null) names["checked-out branch"] = where.cwdBranch;
      if (worktree !== undefined && !(PLAIN_ABSOLUTE_PATH.test(worktree) && visible(worktree) === worktree)) {
        warnings.push(`No step for ${name}: its work tree path ${quoted(worktree, 60)} is not a plain absolute path`);
      } else if (!warned(names)) {
        rewritten.add(branch);
        leftCwd ||= worktree === undefined && where.cwdBranch !== branch;
        rewrite.git = worktree === undefined || worktree === where.cwd ? "git" : `git -C ${sh(worktree)}`;
        const commands = [renderRewrite(rewrite)];
        if (action?.kind === "move" && parent !== undefined) {
          const [b, p, o] = [sh(branch), sh(parent), sh(rewrite.onto)];
          commands.push(`twig branch depend ${b} ${o}${twigArgs}`, `twig branch remove-dep ${b} ${p}${twigArgs}`);
        }
        if (lease !== undefined) {
          commands.push(`git push ${sh(`--force-with-lease${lease}`)} ${sh(remote)} -- ${sh(branch)}`);
        }
        const retarget = action?.retarget;
        if (retarget !== undefined) commands.push(`gh pr edit ${retarget} --base ${sh(rewrite.onto)}`);
        const verb = action?.kind === "move" ? "move" : "restack";
        const what = `${verb} onto ${rewrite.onto}${retarget === undefined ? "" : `, retarget #${retarget}`}`;
        rewrites.push({ branch, what, why: action?.why ?? "", command: commands.join(" && "), rewrite });
      }
    } else if (action === undefined && push !== undefined && (fact.tracked || pr?.number !== undefined)) {
      // A rewrite pushes its own; a branch outside any stack without a PR is nobody's to publish.
      const plain =
        "unpushed" in push
          ? push.unpushed > 0 && { why: `${commitCount(push.unpushed)} not pushed`, flag: "" }
          : (commits?.ahead ?? 0) > 0 && { why: "it has never been pushed", flag: "-u " };
      if (plain && !warned({ branch, remote })) {
        const command = `git push ${plain.flag}${sh(remote)} -- ${sh(branch)}`;
        pushes.push({ branch, what: "push", why: plain.why, command });
      }
    }
  }
  const back: PlannedStep[] = [];
  if (leftCwd) {
    const to = where.cwdBranch === null ? `--detach ${where.cwdHead}` : sh(where.cwdBranch);
    const branch = where.cwdBranch ?? where.cwdHead;
    back.push({ branch, what: "switch back", why: "the rebases above check out", command: `git switch ${to}` });
  }
  if (tidy !== undefined) {
    const command = `twig sync --no-github --no-jira${twigArgs}`;
    deletes.push({ branch: tidy, what: "tidy twig's state", why: "forgets branches git no longer has", command });
  }
  return {
    actions: facts.map((fact) => actions.get(fact.branch)),
    steps: [...rewrites, ...pushes, ...back, ...deletes],
    warnings,
  };
}

/**
 * `git rebase --onto NEW OLD B` in the work tree that has B checked out (git refuses B elsewhere), else where the plan
 * runs. Names reaching here were checked: none starts with `-`, so git reads none as an option.
 */
export function renderRewrite({ branch, onto, oldBase, git = "git" }: Rewrite): string {
  const upstream = oldBase === undefined ? sh(onto) : `--onto ${sh(onto)} ${oldBase}`;
  return `${git} rebase ${upstream} ${sh(branch)}`;
}

/** Why a merged branch may not be deleted yet, or `undefined`: its PR's head is this branch and holds its tip. */
function deleteBlocker({ branch, pr, commits }: BranchFacts, where: Checkouts): string | undefined {
  const tip = commits?.head?.sha;
  const worktree = where.at.get(branch);
  if (worktree !== undefined) return `it is checked out at ${quoted(worktree, 60)}; switch that work tree away first`;
  if (pr?.head_sha === undefined || tip === undefined) return "the merged PR's head commit is unknown";
  if (tip === pr.head_sha) return undefined;
  const prHead = commits?.pr_head;
  if (prHead === undefined || prHead.sha !== pr.head_sha || commits?.counts_limited_by !== undefined) {
    return "the merged PR's head is not here (git fetch)";
  }
  if (prHead.local_ahead > 0) return `${commitCount(prHead.local_ahead)} here not in the merged PR`;
  return undefined;
}

/** The line's words for an action (with its step's forecast), push state and a PR head that is not the local tip. */
export function stateWords(
  action: Action | undefined,
  commits: { push?: BranchCommits["push"]; pr_head?: { local_ahead: number } } | undefined,
  forecast?: Forecast,
): string[] {
  const words: string[] = [];
  if (action !== undefined) {
    const where = action.onto === undefined ? "" : ` onto ${shown(action.onto)}`;
    const verb = {
      clean_up: "clean up",
      move: `move${where}`,
      restack: `restack${where}`,
      follow: `restack after${where.replace(" onto", "")}`,
      forget: "twig sync forgets it",
    }[action.kind];
    words.push(
      `${action.retarget === undefined ? verb : `${verb}, retarget #${action.retarget}`}${forecastWords(forecast)}`,
    );
  }
  const push = commits?.push;
  if (push !== undefined) {
    if ("missing" in push) words.push("no remote branch");
    else if (push.unpushed > 0) words.push(`${push.unpushed} unpushed`);
  }
  const lag = prHeadWords(commits);
  if (lag !== undefined) words.push(lag);
  return words;
}

/** When the PR's head is behind the local tip: its CI and reviews are for an older commit. */
export function prHeadWords(commits: { pr_head?: { local_ahead: number } } | undefined): string | undefined {
  const prHead = commits?.pr_head;
  if (prHead === undefined || prHead.local_ahead === 0) return undefined;
  return `PR CI/reviews lag local by ${commitCount(prHead.local_ahead)}`;
}

/** A forecast as the line says it: `: clean`, `: 2 conflicts (a.py, b.py)`, `: waits on a's conflicts`. */
function forecastWords(forecast: Forecast | undefined): string {
  if (forecast === undefined) return "";
  const { result, unknown } = forecast;
  if (result === "clean") return ": clean";
  if (result === "unknown")
    return unknown?.reason === "waits_on_parent" ? `: ${unknown.message}` : ": forecast unknown";
  const count = (forecast.files?.length ?? 0) + (forecast.files_omitted ?? 0);
  const more = count > LINE_FILES ? `, +${count - LINE_FILES}` : "";
  const paths = (forecast.files ?? []).slice(0, LINE_FILES).map((file) => shownPath(file.path));
  return `: ${count} conflict${count === 1 ? "" : "s"} (${paths.join(", ")}${more})`;
}

/** Files a line names of a conflicting rewrite; the step's forecast lists up to 20. */
const LINE_FILES = 3;

/** A path as prose shows it: plain as is, any other (spaces, quotes, controls) quoted as data, clipped. */
export const shownPath = (path: string) => (/^[\w./@+-]{1,120}$/.test(path) ? path : quoted(path, 60));
