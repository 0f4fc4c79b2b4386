import * as v from "valibot";
import { type ToolError, ToolErrorSchema, toolError } from "../core/errors.ts";
import { clip, inline, quoted, visibleDeep } from "../core/plain-text.ts";
import { err, ok } from "../core/result.ts";
import { BranchCommitsSchema } from "../git/commits/branch-commits.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { listLocalBranches } from "../git/refs.ts";
import { getPrDetails, type PrStatus } from "../github/pr-status.ts";
import { type FoundBy, findBranchPr, getPullRequest } from "../github/pull-request.ts";
import { normalizeIssueKey } from "../jira/jql.ts";
import { searchIssueStatuses } from "../jira/search.ts";
import { branchCommits, currentBranch, openWorkspace } from "../repo/workspace.ts";
import type { ServiceContext } from "../services/services.ts";
import { buildBranchGraph, includesSorted, rootCandidates } from "../twig/graph.ts";
import { stackMembers } from "../twig/stack-members.ts";
import { loadState } from "../twig/state.ts";
import { CursorSchema, decodeCursor, encodeCursor } from "./cursor.ts";
import { type CallInfo, defineTool, REMOTE_ANNOTATIONS } from "./define.ts";
import { count, HintSchema, largestFitting } from "./fit.ts";
import { getPrStatusTool } from "./get-pr-status.ts";
import { openCall, PullRequestSchema } from "./github-params.ts";
import { BranchNameSchema, branchNotFound, unpublished } from "./params.ts";

/** Branches per page: 30 PRs stay within two GitHub round trips and a reply of a few thousand tokens. */
const STACK_PAGE_SIZE = 30;
/** Reasons listed per PR in a stack (each kind); get_pr_status lists up to ten. */
const MAX_STACK_REASONS = 3;
/** How much of a reason the one-line summary quotes; the entry holds the longer excerpt. */
const LINE_QUOTE_CHARS = 60;

const DriftSchema = v.picklist(["base_differs", "retarget", "native_order"]);
type Drift = v.InferOutput<typeof DriftSchema>;
const PartSchema = v.object({
  status: v.picklist(["disabled", "not_configured", "error"]),
  error: v.optional(ToolErrorSchema),
});
type Part = v.InferOutput<typeof PartSchema>;

const StackPrSchema = v.object({
  number: v.number(),
  /** Absent when GitHub was not asked (not configured, disabled) or could not be read (`error`). */
  state: v.optional(v.picklist(["open", "draft", "merged", "closed"])),
  base: v.optional(v.string()),
  review: v.optional(getPrStatusTool.output.entries.summary.entries.review),
  ci: v.optional(v.picklist(["passing", "failing", "pending", "none"])),
  found_by: v.picklist(["twig_link", "head_ref"]),
  stack: PullRequestSchema.entries.stack,
  ...v.partial(getPrStatusTool.output.entries.reasons).entries,
  requested: v.optional(v.array(v.string())),
  error: v.optional(ToolErrorSchema),
});
type StackPr = v.InferOutput<typeof StackPrSchema>;

const EntrySchema = v.object({
  branch: v.string(),
  parent: v.optional(v.string()),
  depth: v.number(),
  pr: v.optional(StackPrSchema),
  /** base_differs: the PR's base is not the twig parent; retarget: the parent's PR is merged; native_order: GitHub's stack orders them otherwise. */
  drift: v.optional(v.array(DriftSchema)),
  jira: v.optional(v.object({ key: v.string(), status: v.optional(v.string()) })),
  ...BranchCommitsSchema.entries,
});
type Entry = v.InferOutput<typeof EntrySchema>;

// Only what a model reads first is published (tools/list stays within 11.5 KB); the rest is
// checked all the same, and docs/tools.md describes it.
const hidden = <S extends v.GenericSchema>(schema: S) => v.pipe(schema, unpublished("field"));

const StackStatusSchema = v.object({
  scope: hidden(v.picklist(["stack", "all"])),
  /** The scope in one line, then one line per branch. */
  summary: v.string(),
  lines: v.array(v.string()),
  branches: v.array(EntrySchema),
  github: v.optional(hidden(PartSchema)),
  jira: v.optional(hidden(PartSchema)),
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
    'For "state of my stack", "what\'s blocked", standup: each branch in tree order with its PR, review, CI, why blocked (quoted), drift, commits ahead/behind, Jira status. No PR bodies or logs (get_ci_log).',
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
    const [local, loaded] = await Promise.all([listLocalBranches(repo, ctx.files), loadState(ctx, repo.workTree)]);
    if (!local.ok) return local;
    if (!loaded.ok) return loaded;
    const [sorted, state] = [local.value, loaded.value];
    const head = await currentBranch(ctx, workspace.value);
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
    const members = stackMembers(graph, state, sorted, rootCandidates(sorted, state, current), asked);

    const repository = ctx.repo.ok ? ctx.repo.value : "";
    const query = `get_stack_status\u0000${scope}\u0000${args.branch ?? ""}`;
    let start = 0;
    if (args.cursor !== undefined) {
      const decoded = decodeCursor(args.cursor, repository);
      const at =
        decoded.ok && decoded.value.query === query ? members.findIndex((m) => m.branch === decoded.value.after) : -1;
      if (at < 0) {
        const why = decoded.ok ? "it pages through another question, or the stack changed since" : decoded.why;
        const hint =
          "Pass next_cursor exactly as the previous page gave it, with the same branch and scope, or start again without cursor.";
        return err(toolError("invalid_params", `cursor cannot be used: ${why}`, hint));
      }
      start = at + 1;
    }
    const page = members.slice(start, start + STACK_PAGE_SIZE);
    const names = page.map(({ branch }) => branch);
    const links = names.map((branch) => state.branches.get(branch));
    const queries = names.map((branch, i) => ({ branch, linked: links[i]?.github_pr ?? null }));
    const [commits, github, jira] = await Promise.all([
      branchCommits(ctx, repo, state, sorted, names, { signal: info.signal }),
      githubPart(ctx, info, repo, queries),
      jiraPart(ctx, info, links),
    ]);

    const prOf = new Map(page.map(({ branch }, index) => [branch, github.prs[index] ?? undefined]));
    const entries = page.map((member, index): Entry => {
      const pr = prOf.get(member.branch);
      const entry: Entry = pr === undefined ? { ...member } : { ...member, pr };
      const key = links[index]?.jira_issue;
      if (key != null && key !== "") {
        const normal = normalizeIssueKey(key);
        const status = normal === null ? undefined : jira.statuses?.get(normal);
        // Not a key: clipped only, since the line quotes it and the reply escapes what must be.
        entry.jira = { key: normal ?? clip(key, 80), ...(status === undefined ? {} : { status: inline(status, 80) }) };
      }
      const drift = driftOf(entry, entry.parent === undefined ? undefined : prOf.get(entry.parent));
      if (drift.length > 0) entry.drift = drift;
      // Only a repository the reader cannot read at all fails the whole read: each branch says so.
      return Object.assign(entry, commits[index]);
    });
    const lines = entries.map((entry) => lineOf(entry, github.part === undefined) + commitWords(entry));
    const parts = { ...(github.part && { github: github.part }), ...(jira.part && { jira: jira.part }) };

    // The first `n` branches of the page; the cursor resumes after the last one.
    const reply = (n: number): StackStatus => {
      const branches = entries.slice(0, n);
      const last = branches.at(-1);
      const failing = branches.flatMap(({ pr }) =>
        pr?.ci === "failing" && (pr.state === "open" || pr.state === "draft") ? [`#${pr.number}`] : [],
      );
      const hint = `CI failing on ${failing.join(", ")}: get_ci_log with pr_number has the logs.`;
      return {
        scope,
        summary: summaryLine(branches, members.length, start, parts),
        branches,
        lines: lines.slice(0, n),
        ...parts,
        ...(failing.length > 0 ? { hint } : {}),
        ...(start + n < members.length && last !== undefined
          ? { next_cursor: encodeCursor({ after: last.branch, query }, repository) }
          : {}),
      };
    };
    // Thirty branches with every reason at its longest would pass the budget: fewer go on this page, and the
    // cursor carries on. Measured as sent: escaping invisible characters can double a branch name's cost.
    const { budget } = info;
    const sent = (n: number) => visibleDeep(reply(n));
    if (budget === undefined || budget.size(sent(page.length)) <= budget.units) return ok(reply(page.length));
    return ok(largestFitting(budget, sent, 1, page.length));
  },
});

/** The line's commit part, when there is news: commits of its own, and a base that moved on. */
function commitWords({ ahead, behind, base, needs_restack, counts_limited_by }: Entry): string {
  if (ahead === undefined || behind === undefined || base === undefined) return "";
  const atLeast = counts_limited_by === undefined ? "" : "≥";
  const words = [
    ...(ahead > 0 ? [`${atLeast}${count(ahead)} ahead`] : []),
    ...(needs_restack ? [`${atLeast}${count(behind)} behind ${base}: needs restack`] : []),
  ];
  return words.length === 0 ? "" : ` · ${words.join(", ")}`;
}

/** A service part that did not answer: disabled, not configured (no credentials or remote), or failed. */
function missing(error: ToolError): Part {
  const unconfigured = ["credentials_missing", "not_found", "unsupported_repo", "no_repo"].includes(error.code);
  return { status: unconfigured ? "not_configured" : "error", error };
}

/** One PR (or none) per branch of the page; without GitHub's answer, only the PRs twig links. */
async function githubPart(
  ctx: ServiceContext,
  info: CallInfo,
  repo: DiscoveredRepo,
  queries: Array<{ branch: string; linked: number | null }>,
): Promise<{ prs: Array<StackPr | null>; part?: Part }> {
  const linkedOnly = queries.map(({ linked }): StackPr | null =>
    linked === null ? null : { number: linked, found_by: "twig_link" },
  );
  const unanswered = (part: Part) => ({ part, prs: linkedOnly });
  if (info.enabled?.("github") === false) return unanswered({ status: "disabled" });
  if (queries.length === 0) return { prs: [] };
  const opened = await openCall(ctx, null, info, async () => ok(repo));
  if (!opened.ok) return unanswered(missing(opened.error));
  const call = opened.value;
  // All branches in parallel, two round trips; a failure is only that branch's (an entry if its PR number is known).
  const found = await Promise.all(
    queries.map(async ({ branch, linked }): Promise<StackPr | { error: ToolError } | null> => {
      const failed = (error: ToolError, number = linked): StackPr | { error: ToolError } =>
        number === null ? { error } : { number, found_by: linked === null ? "head_ref" : "twig_link", error };
      const found = await findBranchPr(call, branch, linked);
      if (!found.ok) return failed(found.error);
      if (found.value === null) return null;
      const { number, found_by = "twig_link", listed } = found.value;
      const pr = listed === undefined ? await getPullRequest(call, number) : ok(listed);
      const status = pr.ok ? await getPrDetails(call, pr.value) : pr;
      return status.ok ? stackPr(found_by, status.value) : failed(status.error, number);
    }),
  );
  // A rate limit or a refused token is the same for every branch: said once, with its reset time.
  // A 403 or 404 on one PR is that PR's own (no access to it, deleted), not the call's.
  const once = ["rate_limited", "credentials_invalid", "credentials_missing"];
  const errors = found.flatMap((pr) => (pr?.error === undefined ? [] : [pr.error]));
  const shared = errors.find((error) => once.includes(error.code) && error.kind !== "refused");
  const prs = found.map((pr): StackPr | null => {
    if (pr === null || !("number" in pr)) return null;
    return pr.error !== undefined && pr.error.code === shared?.code ? { number: pr.number, found_by: pr.found_by } : pr;
  });
  return shared === undefined ? { prs } : { prs, part: missing(shared) };
}

function stackPr(found_by: FoundBy, { pull_request: pr, summary, reasons }: PrStatus): StackPr {
  const { changes_requested, failing } = reasons;
  const requested = pr.state === "open" ? pr.requested_reviewers.slice(0, MAX_STACK_REASONS) : [];
  return {
    number: pr.number,
    state: pr.merged ? "merged" : pr.state !== "open" ? "closed" : pr.draft ? "draft" : "open",
    base: inline(pr.base, 255),
    review: summary.review,
    ci: summary.verdict === "no_checks" ? "none" : summary.verdict,
    found_by,
    ...(pr.stack !== undefined && { stack: pr.stack }),
    ...(changes_requested.length > 0 && { changes_requested: changes_requested.slice(0, MAX_STACK_REASONS) }),
    ...(failing.length > 0 && { failing: failing.slice(0, MAX_STACK_REASONS) }),
    ...(requested.length > 0 && { requested: requested.map((name) => inline(name, 80)) }),
  };
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
  if (!client.ok) return { part: missing(client.error) };
  const deployment = await client.value.deployment(info.signal);
  if (!deployment.ok) return { part: missing(deployment.error) };
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
  // Without GitHub, a branch twig links to nothing may still have a PR: only the link is known.
  if (pr === undefined) parts.push(githubAnswered ? "no PR" : "no linked PR");
  else if (pr.error !== undefined) parts.push(`#${pr.number} could not be read (${pr.error.code})`);
  else if (pr.state === undefined) parts.push(`#${pr.number}`);
  else {
    parts.push(`#${pr.number} ${pr.state}${pr.found_by === "head_ref" ? " (found by branch)" : ""}`);
    if (pr.state === "open" || pr.state === "draft") {
      const [first, ...others] = pr.changes_requested ?? [];
      if (first !== undefined) {
        const quote = first.excerpt === undefined ? "" : `: ${JSON.stringify(inline(first.excerpt, LINE_QUOTE_CHARS))}`;
        parts.push(`changes requested by ${first.author}${others.length > 0 ? ` +${others.length}` : ""}${quote}`);
      } else if (pr.review !== undefined) {
        const waiting = pr.review === "review_required" && pr.requested?.length ? ` (${pr.requested.join(", ")})` : "";
        parts.push(`${pr.review === "none" ? "no reviews" : pr.review.replace("_", " ")}${waiting}`);
      }
      if (pr.ci === "failing") {
        const failing = (pr.failing ?? []).map((f) =>
          f.excerpt === undefined ? f.name : `${f.name} (${inline(f.excerpt, LINE_QUOTE_CHARS)})`,
        );
        parts.push(`CI failing: ${failing.join(", ") || "see get_pr_status"}`);
      } else if (pr.ci !== undefined) parts.push(pr.ci === "none" ? "no CI" : `CI ${pr.ci}`);
    }
  }
  for (const drift of entry.drift ?? []) {
    if (drift === "retarget") parts.push(`parent ${entry.parent} merged: retarget`);
    if (drift === "base_differs") parts.push(`base ${pr?.base} ≠ twig parent ${entry.parent}`);
    if (drift === "native_order") parts.push("GitHub stack order differs from twig's");
  }
  if (entry.jira !== undefined) {
    const { key, status } = entry.jira;
    // A link twig could not have written is someone's text: quoted, and said to be no key.
    const shown = normalizeIssueKey(key) === null ? `${quoted(key, 40)} (not a Jira key)` : key;
    parts.push(`${shown}${status === undefined ? "" : ` ${status}`}`);
  }
  return `${"  ".repeat(entry.depth)}${inline(entry.branch, 255)}  ${parts.join(" · ")}`;
}

/** Ready: open, approved, CI passing or absent. Blocked: changes requested, CI failing, or drift. */
function summaryLine(entries: Entry[], total: number, start: number, live: { github?: Part; jira?: Part }): string {
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
  const shown =
    entries.length === total
      ? plural(total, "branch", "branches")
      : `branches ${count(start + 1)}–${count(start + entries.length)} of ${count(total)}`;
  const counts = Object.entries(tally).flatMap(([what, n]) => (n > 0 ? [`${n} ${what}`] : []));
  const notes = Object.entries({ GitHub: live.github, Jira: live.jira }).flatMap(([name, part]) =>
    part === undefined
      ? []
      : [`${name} ${part.status.replace("_", " ")}${part.error ? ` (${part.error.message})` : ""}`],
  );
  const prText =
    live.github === undefined || prs > 0
      ? `, ${plural(prs, "PR", "PRs")}${counts.length > 0 ? `: ${counts.join(", ")}` : ""}`
      : "";
  return `${shown}${prText}${notes.length > 0 ? `. ${notes.join(". ")}` : ""}`;
}
