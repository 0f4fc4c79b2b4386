import * as v from "valibot";
import { clip, inline, quoted, visibleDeep } from "../core/plain-text.ts";
import { ok } from "../core/result.ts";
import { WorkBudget } from "../git/objects/budget.ts";
import { listLocalBranches } from "../git/refs.ts";
import { triageWords } from "../github/ci-triage.ts";
import { normalizeIssueKey } from "../jira/jql.ts";
import { searchIssueStatuses } from "../jira/search.ts";
import { branchCommits, currentBranch, openWorkspace } from "../repo/workspace.ts";
import { buildBranchGraph, includesSorted, rootCandidates, type StackMember, stackMembers } from "../twig/graph.ts";
import { loadState, type TwigState } from "../twig/state.ts";
import {
  branchPrs,
  type Part,
  PartSchema,
  type StackPr,
  StackPrSchema,
  stackPr,
  unanswered,
} from "./shared/branch-pr.ts";
import { readCheckouts } from "./shared/checkouts.ts";
import { BranchCommitsSchema } from "./shared/commits-schema.ts";
import type { ServiceContext } from "./shared/context.ts";
import { type CallInfo, defineTool, REMOTE_ANNOTATIONS } from "./shared/define.ts";
import { ActionSchema, branchFacts, planStack, StepSchema, shown, stateWords } from "./shared/next-steps.ts";
import { CursorSchema, count, encodeCursor, fitPage, HintSchema, hidden, resumeAfter } from "./shared/paging.ts";
import { BranchNameSchema, branchNotFound } from "./shared/params.ts";
import { forecastPlan, withForecasts } from "./shared/restack-forecast.ts";

/** Branches per page: 30 PRs stay within two GitHub round trips and a reply of a few thousand tokens. */
const STACK_PAGE_SIZE = 30;
/** How much of a failing check's excerpt the line quotes: its first failure; the entry holds the longer excerpt. */
const LINE_QUOTE_CHARS = 60;

const DriftSchema = v.picklist(["base_differs", "retarget", "native_order"]);
type Drift = v.InferOutput<typeof DriftSchema>;
const EntrySchema = v.object({
  branch: v.string(),
  parent: v.optional(v.string()),
  depth: v.number(),
  pr: v.optional(StackPrSchema),
  /** base_differs: the PR's base is not the twig parent; retarget: the parent's PR is merged; native_order: GitHub's stack orders them otherwise. */
  drift: v.optional(v.array(DriftSchema)),
  jira: v.optional(v.object({ key: v.string(), status: v.optional(v.string()) })),
  action: v.optional(ActionSchema),
  /** Not in twig's state (scope "all" lists every local branch). */
  tracked: v.optional(v.literal(false)),
  /** twig tracks it, git has no such branch. */
  gone: v.optional(v.literal(true)),
  // The own commits' list, the tip's subject and date are get_branch_context's: on 30 branches they would crowd out
  // the rest. `base` is said only when it is not the parent, `push` only when not in step with the remote branch.
  ...v.omit(BranchCommitsSchema, ["commits", "commits_omitted", "head", "pr_head"]).entries,
  head: v.optional(v.object({ sha: v.string() })),
  /** Beside the tip, the PR's head is said by how far it is: `local_behind` only when not 0. */
  pr_head: v.optional(v.object({ local_ahead: v.number(), local_behind: v.optional(v.number()) })),
});
type Entry = v.InferOutput<typeof EntrySchema>;

const StackStatusSchema = v.object({
  scope: hidden(v.picklist(["stack", "all"])),
  /** The scope in one line, then one line per branch. */
  summary: v.string(),
  lines: v.array(v.string()),
  branches: v.array(EntrySchema),
  github: v.optional(hidden(PartSchema)),
  /** What GitHub would not give though it answered (review threads, from GraphQL). */
  unavailable: v.optional(hidden(v.array(v.string()))),
  jira: v.optional(hidden(PartSchema)),
  /** What to do, in order, each with its command (never run by the server). */
  next_steps: v.array(StepSchema),
  /** Branches given no step, and why (a name git would refuse, a twig link to another branch's PR). */
  warnings: v.optional(hidden(v.array(v.string()))),
  /** Names get_ci_log when a PR on the page has failing CI. */
  hint: HintSchema,
  next_cursor: v.optional(hidden(v.string())),
});
type StackStatus = v.InferOutput<typeof StackStatusSchema>;

/**
 * `local` on purpose: with `--disable github|jira` it answers from `.twig/state.json`, those parts `disabled`. It asks
 * GitHub and Jira itself, not through their tools: a whole stack costs two GitHub round trips and one Jira search.
 */
export const getStackStatusTool = defineTool({
  name: "get_stack_status",
  title: "Stack status",
  description:
    'For "state of my stack", "what\'s blocked", standup: per branch PR, review, CI, why blocked, drift, ahead/behind, push, Jira; next steps, conflicts. Logs: get_ci_log.',
  group: "local",
  annotations: REMOTE_ANNOTATIONS,
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("A branch of the stack. Default: the current branch."))),
    scope: v.optional(v.pipe(v.picklist(["stack", "all"]), v.description('Default "stack"; "all": every stack.'))),
    cursor: v.optional(CursorSchema),
  }),
  output: StackStatusSchema,
  meta: { "anthropic/alwaysLoad": true },
  repoScoped: true,
  async handler(args, ctx, info) {
    const scope = args.scope ?? "stack";
    const workspace = await openWorkspace(ctx);
    if (!workspace.ok) return workspace;
    const repo = workspace.value;
    const [local, loaded] = await Promise.all([listLocalBranches(repo), loadState(ctx, repo.workTree)]);
    if (!local.ok) return local;
    if (!loaded.ok) return loaded;
    const [sorted, state] = [local.value, loaded.value];
    const head = await currentBranch(workspace.value);
    const current = head.ok ? head.value.branch : null;
    let asked: string | null = null;
    if (scope === "stack") {
      if (args.branch === undefined && !head.ok) return head;
      asked = args.branch ?? current;
      if (asked !== null && !includesSorted(sorted, asked)) {
        const hint = 'Use list_branches to see tracked branches, or scope="all" for every stack.';
        return branchNotFound(asked, "the repository", sorted, hint);
      }
    }
    const graph = buildBranchGraph(sorted, state);
    const members = withGone(
      stackMembers(graph, state, sorted, rootCandidates(sorted, state, current), asked),
      state,
      sorted,
      scope,
    );

    const repository = ctx.repo.ok ? ctx.repo.value : "";
    const query = `get_stack_status\u0000${scope}\u0000${args.branch ?? ""}`;
    const resumed = resumeAfter(args.cursor, repository, query, ({ after }) => {
      const at = members.findIndex((m) => m.branch === after);
      return at < 0 ? null : at + 1;
    });
    if (!resumed.ok) return resumed;
    const start = resumed.value ?? 0;
    const page = members.slice(start, start + STACK_PAGE_SIZE);
    const names = page.flatMap((member) => (member.gone ? [] : [member.branch]));
    const gone = page.flatMap((member) => (member.gone ? [member.branch] : []));
    const links = page.map(({ branch }) => state.branches.get(branch));
    // A gone branch's linked PR still says where its old tip was (its merged head): a child's old base.
    const queries = page.flatMap(({ branch, gone }) => {
      const linked = state.branches.get(branch)?.github_pr ?? null;
      return gone && linked === null ? [] : [{ branch, linked }];
    });
    // The PRs first: their heads say whether CI and reviews are for the local tip.
    const [github, jira, where] = await Promise.all([
      branchPrs(ctx, info, repo, queries, true, true),
      jiraPart(ctx, info, links),
      readCheckouts(ctx, repo, gone),
    ]);
    const found = new Map(queries.map(({ branch }, i) => [branch, github.prs[i]]));
    const prHeads = names.map((branch) => found.get(branch)?.status?.pull_request.head_sha);
    // One budget for the call's commit walks and its restack forecasts.
    const budget = new WorkBudget();
    const commits = await branchCommits(ctx, repo, state, sorted, names, { signal: info.signal, prHeads, budget });
    const prOf = new Map(queries.map(({ branch }, i) => [branch, github.prs[i] ? stackPr(github.prs[i]) : undefined]));
    const commitsOf = new Map(names.map((branch, i) => [branch, commits[i]]));

    const entries = page.map(({ cut: _cut, ...member }, index): Entry => {
      const pr = prOf.get(member.branch);
      const entry: Entry = pr === undefined ? { ...member } : { ...member, pr };
      const key = links[index]?.jira_issue;
      if (key != null && key !== "") {
        const normal = normalizeIssueKey(key);
        const status = normal === null ? undefined : jira.statuses?.get(normal);
        // Not a key: clipped only, since the line quotes it and the reply escapes what must be.
        entry.jira = { key: normal ?? clip(key, 80), ...(status === undefined ? {} : { status: inline(status, 80) }) };
      }
      // Judged against twig's parent, which may be gone from git: the entry's parent is then where the stack hangs.
      const parent = state.parentsOf(member.branch)[0] ?? entry.parent;
      const drift = driftOf({ ...entry, parent }, parent === undefined ? undefined : prOf.get(parent));
      if (drift.length > 0) entry.drift = drift;
      if (!isTracked(state, member.branch)) entry.tracked = false;
      const { commits: _list, commits_omitted: _omitted, head, pr_head, ...rest } = commitsOf.get(member.branch) ?? {};
      const counts: Omit<Entry, "branch" | "depth"> = { ...(head && { head: { sha: head.sha } }), ...rest };
      if (pr_head !== undefined) {
        const { local_ahead, local_behind } = pr_head;
        counts.pr_head = { local_ahead, ...(local_behind > 0 && { local_behind }) };
      }
      if (counts.base === member.parent) delete counts.base;
      // In step with its remote branch: nothing to say.
      if (counts.push && "unpushed" in counts.push && counts.push.unpushed + counts.push.unpulled === 0)
        delete counts.push;
      // A PR head not fetched yet is get_branch_context's note: on thirty branches it would crowd the page.
      const warnings = counts.commit_warnings?.filter((warning) => !warning.startsWith("The PR head "));
      if (warnings?.length) counts.commit_warnings = warnings;
      else delete counts.commit_warnings;
      // Said only when true; a merged branch is to be cleaned up, never restacked.
      if (!counts.needs_restack || pr?.state === "merged") delete counts.needs_restack;
      // Only a repository the reader cannot read at all fails the whole read: each branch says so.
      return Object.assign(entry, counts);
    });
    const facts = entries.map(({ branch, gone = false, tracked = true }) =>
      branchFacts({ branch, gone, tracked }, found.get(branch), commitsOf.get(branch), where),
    );
    const root = graph.defaultRoot ?? rootCandidates(sorted, state, current)[0] ?? null;
    const plan = (n = facts.length) =>
      planStack(facts.slice(0, n), state, (branch) => includesSorted(sorted, branch), root, where);
    const forecasts = await forecastPlan(repo, facts, plan, { budget, signal: info.signal, shadowed: where.shadowed });
    const { actions } = plan();
    for (const [i, action] of actions.entries()) if (action !== undefined) (entries[i] as Entry).action = action;
    const lines = entries.map((entry) =>
      [
        lineOf(entry, github.answered) + commitWords(entry),
        ...stateWords(entry.action, entry, forecasts.get(entry.branch)),
      ].join(" · "),
    );
    const parts = {
      ...(github.part && { github: github.part }),
      ...(jira.part && { jira: jira.part }),
    };

    // The first `n` branches of the page; the cursor resumes after the last one.
    const reply = (n: number): StackStatus => {
      const branches = entries.slice(0, n);
      const last = branches.at(-1);
      // The page's own plan: its last step returns the work tree to its branch.
      const { steps, warnings } = plan(n);
      const failing = branches.flatMap(({ pr }) =>
        pr?.ci === "failing" && (pr.state === "open" || pr.state === "draft") ? [`#${pr.number}`] : [],
      );
      const hint = `CI failing on ${failing.join(", ")}: get_ci_log with pr_number has the logs.`;
      return {
        scope,
        summary: summaryLine(branches, members, start, parts, github.failed),
        branches,
        lines: lines.slice(0, n),
        next_steps: withForecasts(steps, forecasts),
        ...(warnings.length > 0 && { warnings }),
        ...parts,
        ...(github.unavailable && { unavailable: github.unavailable }),
        ...(failing.length > 0 ? { hint } : {}),
        ...(start + n < members.length && last !== undefined
          ? { next_cursor: encodeCursor({ after: last.branch, query }, repository) }
          : {}),
      };
    };
    // Thirty branches with every reason at its longest would pass the budget: fewer go on this page, and the
    // cursor carries on. Measured as sent: escaping invisible characters can double a branch name's cost.
    return ok(fitPage(info.budget, page.length, { build: reply, sent: (n) => visibleDeep(reply(n)), min: 1 }));
  },
});

/** The line's commit part, when there is news: commits of its own, and a base that moved on. */
function commitWords({ ahead, behind, base = "", parent, needs_restack, counts_limited_by, action }: Entry): string {
  if (ahead === undefined || behind === undefined) return "";
  const atLeast = counts_limited_by === undefined ? "" : "≥";
  const words = [
    ahead > 0 && `${atLeast}${count(ahead)} ahead`,
    // A merged branch being behind is expected: it is to be cleaned up, not restacked.
    needs_restack && action?.kind !== "clean_up" && `${atLeast}${count(behind)} behind ${shown(base || parent || "")}`,
  ].filter(Boolean);
  return words.length === 0 ? "" : ` · ${words.join(", ")}`;
}

/** In twig's state: a record, a dependency or a root. */
function isTracked(state: TwigState, branch: string): boolean {
  return (
    state.branches.has(branch) ||
    state.parentsOf(branch).length > 0 ||
    state.dependencies.some((dep) => dep.parent === branch) ||
    state.roots.some((root) => root.branch === branch)
  );
}

/**
 * The members, with each branch twig tracks that git no longer has placed after its parent (scope "all": the rest
 * at the end), so it is said, not silently missing.
 */
function withGone(
  members: StackMember[],
  state: TwigState,
  sorted: readonly string[],
  scope: "stack" | "all",
): Array<StackMember & { gone?: true }> {
  const out: Array<StackMember & { gone?: true }> = [...members];
  for (const branch of [...state.branches.keys()].sort()) {
    if (includesSorted(sorted, branch)) continue;
    const parent = state.parentsOf(branch)[0];
    const at = parent === undefined ? -1 : out.findIndex((member) => member.branch === parent);
    // Under a root (not listed), it goes before its first child: the child's old base is its old tip.
    const child = at >= 0 ? -1 : out.findIndex((member) => state.parentsOf(member.branch)[0] === branch);
    const gone = { branch, ...(parent !== undefined && { parent }), gone: true as const };
    if (at >= 0) out.splice(at + 1, 0, { ...gone, depth: (out[at] as StackMember).depth + 1 });
    else if (child >= 0) out.splice(child, 0, { ...gone, depth: (out[child] as StackMember).depth });
    else if (scope === "all") out.push({ ...gone, depth: 0 });
  }
  return out;
}

/** Where the PR and twig disagree, judged only for PRs still open (a merged PR's base is history). */
function driftOf({ pr, parent }: Entry, parentPr: StackPr | undefined): Drift[] {
  if (pr?.state === undefined || pr.state === "merged" || pr.state === "closed") return [];
  const drift: Drift[] = [];
  const parentMerged = parentPr?.state === "merged";
  // After the parent merged, its own base is where this PR belongs.
  const onParentsBase = parentMerged && pr.base === parentPr?.base;
  if (parentMerged && pr.base === parent) drift.push("retarget");
  else if (parent !== undefined && pr.base !== parent && !onParentsBase) drift.push("base_differs");
  const [mine, theirs] = [pr.stack, parentPr?.stack];
  if (mine && theirs && (mine.number !== theirs.number || theirs.position >= mine.position)) drift.push("native_order");
  return drift;
}

async function jiraPart(
  ctx: ServiceContext,
  info: CallInfo,
  links: ReadonlyArray<{ jira_issue?: string | null } | undefined>,
): Promise<{ statuses?: Map<string, string>; part?: Part }> {
  const keys = [
    ...new Set(links.map((link) => normalizeIssueKey(link?.jira_issue ?? "")).filter((key) => key !== null)),
  ];
  if (keys.length === 0) return {};
  if (info.enabled?.("jira") === false) return { part: { status: "disabled" } };
  const client = await ctx.jira();
  if (!client.ok) return { part: unanswered(client.error) };
  const deployment = await client.value.deployment(info.signal);
  if (!deployment.ok) return { part: unanswered(deployment.error) };
  const found = await searchIssueStatuses(client.value, deployment.value, keys, info.signal);
  return found.ok ? { statuses: found.value } : { part: { status: "error", error: found.error } };
}

/**
 * `feature/x  #102 open · changes requested by carol: "Token refresh…" · CI failing: pytest (2 failed)`;
 * `githubAnswered` is false when GitHub was not asked or refused the whole call.
 */
function lineOf(entry: Entry, githubAnswered: boolean): string {
  const parts: string[] = [];
  const pr = entry.pr;
  if (entry.gone) parts.push("tracked by twig, gone from git");
  else if (entry.tracked === false) parts.push("not tracked by twig");
  // Without GitHub, a branch twig links to nothing may still have a PR: only the link is known.
  if (pr === undefined) {
    if (!entry.gone) parts.push(githubAnswered ? "no PR" : "no linked PR");
  } else if (pr.error !== undefined) {
    parts.push(`${pr.number === undefined ? "PR" : `#${pr.number}`} could not be read (${pr.error.code})`);
  } else if (pr.state === undefined) parts.push(`#${pr.number}`);
  else {
    parts.push(`#${pr.number} ${pr.state}${pr.found_by === "head_ref" ? " (found by branch)" : ""}`);
    if (pr.other_head !== undefined) parts.push(`twig's link is wrong: #${pr.number} is ${shown(pr.other_head)}'s PR`);
    if (pr.state === "open" || pr.state === "draft") {
      const [first, ...others] = pr.changes_requested ?? [];
      if (first !== undefined) {
        // The excerpts are the entry's: the line names who and what only.
        parts.push(`changes requested by ${first.author}${others.length > 0 ? ` +${others.length}` : ""}`);
      } else if (pr.review !== undefined) {
        const waiting = pr.review === "review_required" && pr.requested?.length ? ` (${pr.requested.join(", ")})` : "";
        parts.push(`${pr.review === "none" ? "no reviews" : pr.review.replace("_", " ")}${waiting}`);
      }
      if (pr.ci === "failing") {
        const failing = (pr.failing ?? []).map((f) =>
          f.excerpt === undefined ? f.name : `${f.name} (${inline(f.excerpt, LINE_QUOTE_CHARS)})`,
        );
        // Whose each failure is: said once when it is the same for all.
        const words = (pr.failing ?? []).map((f) => triageWords(f.triage));
        const same = words.every((w) => w === words[0]);
        const said = same ? failing.join(", ") : failing.map((f, i) => (words[i] ? `${f}, ${words[i]}` : f)).join("; ");
        const after = same && words[0] ? `, ${words[0]}` : "";
        parts.push(`CI failing: ${said || "see get_pr_status"}${after}`);
      } else if (pr.ci !== undefined) parts.push(pr.ci === "none" ? "no CI" : `CI ${pr.ci}`);
      const open = pr.unresolved_threads ?? 0;
      const plus = pr.threads_at_least ? "+" : "";
      if (open > 0) parts.push(`${open}${plus} unresolved thread${open === 1 && !plus ? "" : "s"}`);
    }
  }
  for (const drift of entry.drift ?? []) {
    if (drift === "retarget" && entry.action?.retarget === undefined)
      parts.push(`parent ${shown(pr?.base ?? "")} merged: retarget`);
    if (drift === "base_differs")
      parts.push(`base ${shown(pr?.base ?? "")} ≠ twig parent ${shown(entry.parent ?? "")}`);
    if (drift === "native_order") parts.push("GitHub stack order differs from twig's");
  }
  if (entry.jira !== undefined) {
    const { key, status } = entry.jira;
    // A link twig could not have written is someone's text: quoted, and said to be no key.
    const shown = normalizeIssueKey(key) === null ? `${quoted(key, 40)} (not a Jira key)` : key;
    parts.push(`${shown}${status === undefined ? "" : ` ${status}`}`);
  }
  return `${"  ".repeat(entry.depth)}${inline(shown(entry.branch), 255)}  ${parts.join(" · ")}`;
}

/** Ready: open, approved, CI passing or absent. Blocked: changes requested, CI failing, or drift. */
function summaryLine(
  entries: Entry[],
  members: ReadonlyArray<{ cut?: true }>,
  start: number,
  live: { github?: Part; jira?: Part },
  unread: number,
): string {
  const tally = { ready: 0, blocked: 0, draft: 0, waiting: 0, merged: 0, closed: 0 };
  let prs = 0;
  for (const { pr, drift } of entries) {
    if (pr?.state === undefined) continue;
    prs++;
    if (pr.state === "merged" || pr.state === "closed" || pr.state === "draft") tally[pr.state]++;
    else if (pr.review === "changes_requested" || pr.ci === "failing" || (drift?.length ?? 0) > 0) tally.blocked++;
    else if (pr.review === "approved" && (pr.ci === "passing" || pr.ci === "none")) tally.ready++;
    else tally.waiting++;
  }
  const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;
  const [total, more] = [members.length, members.some((member) => member.cut) ? "+" : ""];
  const shown =
    entries.length === total && !more
      ? plural(total, "branch", "branches")
      : `branches ${count(start + 1)}–${count(start + entries.length)} of ${count(total)}${more}`;
  const counts = Object.entries(tally).flatMap(([what, n]) => (n > 0 ? [`${n} ${what}`] : []));
  const notes = Object.entries({ GitHub: live.github, Jira: live.jira }).flatMap(([name, part]) =>
    part === undefined
      ? []
      : [`${name} ${part.status.replace("_", " ")}${part.error ? ` (${part.error.message})` : ""}`],
  );
  // Unread PRs are neither "no PR" nor counted: the reader is told how many are unknown.
  if (unread > 0) notes.unshift(`GitHub did not answer for ${plural(unread, "branch", "branches")}`);
  const prText =
    live.github === undefined || prs > 0
      ? `, ${plural(prs, "PR", "PRs")}${counts.length > 0 ? `: ${counts.join(", ")}` : ""}`
      : "";
  return `${shown}${prText}${notes.length > 0 ? `. ${notes.join(". ")}` : ""}`;
}
