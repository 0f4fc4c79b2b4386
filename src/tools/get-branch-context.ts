import * as v from "valibot";
import { type ToolError, ToolErrorSchema, toolError } from "../core/errors.ts";
import { clip } from "../core/plain-text.ts";
import { ok } from "../core/result.ts";
import { WorkBudget } from "../git/objects/budget.ts";
import { listLocalBranches } from "../git/refs.ts";
import { JiraIssueSchema } from "../jira/issue.ts";
import { normalizeIssueKey } from "../jira/jql.ts";
import { branchCommits, workspaceAndState } from "../repo/workspace.ts";
import { BranchRecordSchema } from "../twig/branch-record.ts";
import { buildBranchGraph, includesSorted } from "../twig/graph.ts";
import { readStack } from "./shared/ancestors.ts";
import { type BranchPr, branchPrs, PrSummarySchema, summarizePr, unanswered } from "./shared/branch-pr.ts";
import { readCheckouts } from "./shared/checkouts.ts";
import { BranchCommitsSchema } from "./shared/commits-schema.ts";
import type { ServiceContext } from "./shared/context.ts";
import { type CallInfo, defineTool, REMOTE_ANNOTATIONS } from "./shared/define.ts";
import { notAKey, readJiraIssue } from "./shared/jira-issue.ts";
import { ActionSchema, branchFacts, planStack, prHeadWords, StepSchema } from "./shared/next-steps.ts";
import { count, cutFields, cutLists } from "./shared/paging.ts";
import { BranchNameSchema, unpublished } from "./shared/params.ts";
import { forecastPlan, withForecasts } from "./shared/restack-forecast.ts";

/** "A few hundred characters" of the Jira description: enough to say what the issue is about. */
const DESCRIPTION_PREVIEW_CHARS = 300;
/** Ancestors whose PRs are asked for: enough to find the first one not merged in any real stack. */
const MAX_ASKED_ANCESTORS = 10;

const FULL_DETAIL = "Summaries: get_pr_status has every review and check, get_jira_issue the whole description.";
/** Only said when the PR part answered, which needs the github group that get_ci_log belongs to. */
const CI_FAILING_DETAIL = " CI is failing: get_ci_log has the failing checks' logs.";

const JiraSummarySchema = v.object({
  ...v.pick(JiraIssueSchema, ["key", "summary", "status", "assignee", "issue_type", "url", "description"]).entries,
  description_length: v.optional(v.number()),
});

/** A live part, `ok` with `data` or why not (`not_configured`: no credentials or remote); not a variant: smaller. */
function livePart<T extends v.GenericSchema>(data: T) {
  return v.object({
    status: v.picklist(["ok", "not_linked", "disabled", "not_configured", "error"]),
    data: v.optional(data),
    error: v.optional(ToolErrorSchema),
  });
}

const BranchContextSchema = v.object({
  /** The twig record, then the tip, drift, own commits, push state and PR head read from `.git`; its action. */
  branch: v.object({
    ...BranchRecordSchema.entries,
    ...BranchCommitsSchema.entries,
    action: v.optional(ActionSchema),
    /** Its children in twig (each with its linked PR), as get_branch_tree draws them. */
    children: v.array(v.object({ branch: v.string(), pr_number: v.optional(v.number()) })),
  }),
  stack: v.array(BranchRecordSchema),
  // Rare (a hand-edited loop), so left out of tools/list; docs/tools.md describes it.
  cycle: v.optional(v.pipe(v.literal(true), unpublished("field"))),
  pull_request: livePart(PrSummarySchema),
  jira_issue: livePart(JiraSummarySchema),
  /** What to do for the branch and its ancestors, parents first; the server never runs the commands. */
  next_steps: v.array(StepSchema),
  /** Branches given no step, and why (a name git would refuse, a twig link to another branch's PR). */
  warnings: v.optional(v.pipe(v.array(v.string()), unpublished("field"))),
  detail: v.string(),
  ...cutFields(["children", "stack"]),
});
type PrPart = v.InferOutput<typeof BranchContextSchema.entries.pull_request>;
export type JiraSummary = v.InferOutput<typeof JiraSummarySchema>;
type JiraPart = v.InferOutput<typeof BranchContextSchema.entries.jira_issue>;

const failed = (error: ToolError) => ({ status: "error" as const, error });

/** `local`: with GitHub or Jira disabled that part says so; neither fails the whole answer. */
export const getBranchContextTool = defineTool({
  name: "get_branch_context",
  title: "Branch context",
  description: "Start here: the branch, stack, children, own commits, push state, PR and Jira summaries, next steps.",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Default: the current branch."))),
  }),
  output: BranchContextSchema,
  annotations: REMOTE_ANNOTATIONS,
  meta: { "anthropic/alwaysLoad": true },
  repoScoped: true,
  async handler({ branch }, ctx, info) {
    // Opened once for every part: the stack, the commits and the GitHub remote.
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { workspace, state } = loaded.value;
    const stack = await readStack(workspace, state, branch);
    if (!stack.ok) return stack;
    const record = stack.value.stack[0] ?? { branch: branch ?? "" };
    const listed = await listLocalBranches(workspace);
    const sorted = listed.ok ? listed.value : [];
    // Root-most first, the branch last: the plan judges parents before children. The root itself has no PR to ask.
    const chain = stack.value.stack.slice(0, MAX_ASKED_ANCESTORS + 1).reverse();
    const asked = chain.filter((r) => r.parent_branch !== undefined || r.branch === record.branch);
    const names = asked.filter((r) => includesSorted(sorted, r.branch)).map((r) => r.branch);
    // A gone ancestor's linked PR still says where its old tip was (its merged head): a child's old base.
    const queries = asked
      .filter((r) => includesSorted(sorted, r.branch) || r.pr_number !== undefined)
      .map((r) => ({ branch: r.branch, linked: r.pr_number ?? null }));
    const gone = asked.flatMap((r) => (includesSorted(sorted, r.branch) ? [] : [r.branch]));
    const [github, jira_issue, where] = await Promise.all([
      // A lookup that throws fails the PR part only; the stack and the issue still answer.
      branchPrs(ctx, info, workspace, queries).catch((error: unknown) => ({
        prs: [],
        failed: 0,
        answered: false,
        part: failed(toolError("internal", `The PR lookup failed unexpectedly: ${String(error)}`)),
      })),
      jiraPart(ctx, info, record.jira_issue),
      readCheckouts(ctx, workspace, gone),
    ]);
    const foundOf = (name: string) => github.prs[queries.findIndex((q) => q.branch === name)];
    const prHeads = names.map((name) => foundOf(name)?.status?.pull_request.head_sha);
    // One budget for the call's commit walks and its restack forecasts.
    const budget = new WorkBudget();
    const read = listed.ok
      ? await branchCommits(ctx, workspace, state, sorted, names, { signal: info.signal, prHeads, budget })
      : names.map(() => ({ commit_warnings: [listed.error.message] }));
    const at = (name: string) => names.indexOf(name);
    const facts = asked.map(({ branch }) =>
      branchFacts({ branch, gone: at(branch) < 0, tracked: true }, foundOf(branch), read[at(branch)], where),
    );
    const graph = buildBranchGraph(sorted, state);
    const root = graph.defaultRoot ?? chain[0]?.branch ?? null;
    const planned = () => planStack(facts, state, (name) => includesSorted(sorted, name), root, where);
    const forecasts = await forecastPlan(workspace, facts, planned, {
      budget,
      signal: info.signal,
      shadowed: where.shadowed,
    });
    const plan = planned();
    const action = plan.actions.at(-1);
    const children = graph.childrenOf(record.branch).map((child) => {
      const pr = state.branches.get(child)?.github_pr;
      return pr == null ? { branch: child } : { branch: child, pr_number: pr };
    });
    const own = at(record.branch) < 0 ? {} : { ...read[at(record.branch)] };
    const pull_request = prPart(record.pr_number, github, foundOf(record.branch));
    const older = prHeadWords(own);
    // A merged branch is to be cleaned up, never restacked.
    if (pull_request.data?.state === "merged") delete own.needs_restack;
    return ok({
      branch: { ...record, ...own, ...(action && { action }), children },
      stack: stack.value.stack,
      ...(stack.value.cycle ? { cycle: true as const } : {}),
      pull_request,
      jira_issue,
      next_steps: withForecasts(plan.steps, forecasts),
      ...(plan.warnings.length > 0 && { warnings: plan.warnings }),
      detail: `${older === undefined ? "" : `${older}: a push updates them. `}${FULL_DETAIL}${pull_request.data?.verdict === "failing" ? CI_FAILING_DETAIL : ""}`,
    });
  },
  // Thousands of children or a chain thousands deep: the nearest of each are kept, and the rest counted.
  seldomCut: true,
  fit: (answer, budget) =>
    cutLists(
      budget,
      { children: answer.branch.children.length, stack: answer.stack.length },
      (n) => ({
        ...answer,
        branch: { ...answer.branch, children: answer.branch.children.slice(0, n) },
        stack: answer.stack.slice(0, n),
      }),
      ({ children, stack }) =>
        [
          children && `${count(children)} more children: get_branch_tree with this branch lists them.`,
          stack && `${count(stack)} more ancestors: get_branch_stack from the last one listed goes on.`,
        ]
          .filter(Boolean)
          .join(" "),
    ),
});

/** The branch's PR part from the stack's lookup: one decision for "not configured", shared with get_stack_status. */
function prPart(
  linked: number | undefined,
  github: Awaited<ReturnType<typeof branchPrs>>,
  found: BranchPr | null | undefined,
): PrPart {
  if (github.part?.status === "disabled") return { status: linked === undefined ? "not_linked" : "disabled" };
  if (!github.answered && github.part !== undefined) {
    return linked === undefined && github.part.status === "not_configured" ? { status: "not_linked" } : github.part;
  }
  if (found == null) return { status: "not_linked" };
  if (found.status === undefined) return failed(found.error ?? toolError("internal", "The PR could not be read"));
  return { status: "ok", data: { ...summarizePr(found.status), found_by: found.found_by } };
}

async function jiraPart(ctx: ServiceContext, info: CallInfo, linked: string | undefined): Promise<JiraPart> {
  if (linked === undefined) return { status: "not_linked" };
  if (info.enabled?.("jira") === false) return { status: "disabled" };
  const normal = normalizeIssueKey(linked);
  if (normal === null) return failed(notAKey(linked, "issue").error);
  const client = await ctx.jira();
  if (!client.ok) return unanswered(client.error);
  const issue = await readJiraIssue(client.value, normal, info.signal);
  if (!issue.ok) return failed(issue.error);
  // Absent fields stay `undefined`, which JSON leaves out.
  const { key, summary, status, assignee, issue_type, url, description: text } = issue.value;
  const data = { key, summary, status, assignee, issue_type, url };
  if (text === undefined) return { status: "ok", data };
  const preview = { description: clip(text, DESCRIPTION_PREVIEW_CHARS), description_length: Array.from(text).length };
  return { status: "ok", data: { ...data, ...preview } };
}
