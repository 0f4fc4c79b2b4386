import * as v from "valibot";
import { type ToolError, ToolErrorSchema, toolError } from "../core/errors.ts";
import { clip } from "../core/plain-text.ts";
import { err, ok } from "../core/result.ts";
import { type BranchCommits, BranchCommitsSchema } from "../git/commits/branch-commits.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { listLocalBranches } from "../git/refs.ts";
import { getPrDetails, judged, type PrStatus } from "../github/pr-status.ts";
import { findBranchPr, getPullRequest } from "../github/pull-request.ts";
import { resolveTarget } from "../github/target.ts";
import { JiraIssueSchema } from "../jira/issue.ts";
import { branchCommits, workspaceAndState } from "../repo/workspace.ts";
import type { ServiceContext } from "../services/services.ts";
import { type BranchRecord, BranchRecordSchema } from "../twig/branch-record.ts";
import type { TwigState } from "../twig/state.ts";
import { defineTool, REMOTE_ANNOTATIONS, type ToolInvoker } from "./define.ts";
import { readStack } from "./get-branch-stack.ts";
import { getJiraIssueTool } from "./get-jira-issue.ts";
import { getPrStatusTool } from "./get-pr-status.ts";
import { connect, PullRequestSchema } from "./github-params.ts";
import { BranchNameSchema } from "./params.ts";

/** Names listed per kind (failing checks, approvers, …); the counts cover the rest. */
const MAX_NAMES = 10;
/** A check or reviewer name longer than this is cut: CI configs and logins are not ours to trust. */
const MAX_NAME_CHARS = 80;
/** "A few hundred characters" of the Jira description: enough to say what the issue is about. */
const DESCRIPTION_PREVIEW_CHARS = 300;

const FULL_DETAIL = "Summaries: get_pr_status has every review and check, get_jira_issue the whole description.";
/** Only said when the PR part answered, which needs the github group that get_ci_log belongs to. */
const CI_FAILING_DETAIL = " CI is failing: get_ci_log has the failing checks' logs.";

const NamesSchema = v.array(v.string());

const PrSummarySchema = v.object({
  ...v.pick(PullRequestSchema, ["number", "title", "url", "draft", "mergeable"]).entries,
  state: v.picklist(["open", "closed", "merged"]),
  review_decision: getPrStatusTool.output.entries.summary.entries.review,
  approved_by: NamesSchema,
  changes_requested_by: NamesSchema,
  /** Reviewers with a standing review of any kind. */
  reviewers: v.number(),
  ...v.pick(getPrStatusTool.output.entries.summary, ["verdict", "checks"]).entries,
  failing_checks: NamesSchema,
  pending_checks: NamesSchema,
  found_by: v.optional(v.picklist(["twig_link", "head_ref"])),
});
export type PrSummary = v.InferOutput<typeof PrSummarySchema>;

const JiraSummarySchema = v.object({
  ...v.pick(JiraIssueSchema, ["key", "summary", "status", "assignee", "issue_type", "url", "description"]).entries,
  description_length: v.optional(v.number()),
});
export type JiraSummary = v.InferOutput<typeof JiraSummarySchema>;

/** A live part, `ok` with `data` or why not (`not_configured`: no credentials or remote); not a variant: smaller. */
function livePart<T extends v.GenericSchema>(data: T) {
  return v.object({
    status: v.picklist(["ok", "not_linked", "disabled", "not_configured", "error"]),
    data: v.optional(data),
    error: v.optional(ToolErrorSchema),
  });
}

const BranchContextSchema = v.object({
  /** The twig record, then the tip commit and the drift from the branch's base, read from `.git`. */
  branch: v.object({ ...BranchRecordSchema.entries, ...BranchCommitsSchema.entries }),
  stack: v.array(BranchRecordSchema),
  cycle: v.optional(v.literal(true)),
  pull_request: livePart(PrSummarySchema),
  jira_issue: livePart(JiraSummarySchema),
  detail: v.string(),
});
type PrPart = v.InferOutput<typeof BranchContextSchema.entries.pull_request>;
type JiraPart = v.InferOutput<typeof BranchContextSchema.entries.jira_issue>;

/** A lookup that failed: not configured (no credentials), or an error. */
function failed(error: ToolError) {
  return { status: error.code === "credentials_missing" ? "not_configured" : "error", error } as const;
}

/** `local`: with GitHub or Jira disabled that part says so; it asks them only via their tools; neither fails all. */
export const getBranchContextTool = defineTool({
  name: "get_branch_context",
  title: "Branch context",
  description:
    "Start here: the current branch, its stack, commits ahead/behind its parent, PR and Jira status in one call. Summaries only (no PR body, full reviews or checks).",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Default: the current branch."))),
  }),
  output: BranchContextSchema,
  annotations: REMOTE_ANNOTATIONS,
  meta: { "anthropic/alwaysLoad": true },
  repoScoped: true,
  async handler({ branch }, ctx, { invoke, enabled, signal }) {
    if (invoke === undefined) return err(toolError("internal", "get_branch_context needs the tool registry"));
    // Opened once for every part: the stack, the commits and the GitHub remote.
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { workspace, state } = loaded.value;
    const stack = await readStack(ctx, workspace, state, branch);
    if (!stack.ok) return stack;
    const record = stack.value.stack[0] ?? { branch: branch ?? "" };
    const [commits, pull_request, jira_issue] = await Promise.all([
      commitsPart(ctx, workspace, state, record.branch, signal),
      // A PR lookup that throws fails its part only, as one through a tool call would.
      prPart(ctx, workspace, record, enabled?.("github") !== false ? signal : null).catch(
        (error: unknown): PrPart =>
          failed(toolError("internal", `The PR lookup failed unexpectedly: ${String(error)}`)),
      ),
      jiraPart(invoke, record.jira_issue),
    ]);
    return ok({
      branch: { ...record, ...commits },
      stack: stack.value.stack,
      ...(stack.value.cycle ? { cycle: true as const } : {}),
      pull_request,
      jira_issue,
      detail: pull_request.data?.verdict === "failing" ? FULL_DETAIL + CI_FAILING_DETAIL : FULL_DETAIL,
    });
  },
});

/** The branch's tip and drift; a failure is a warning beside the twig record, never the whole answer's. */
async function commitsPart(
  ctx: ServiceContext,
  workspace: DiscoveredRepo,
  state: TwigState,
  branch: string,
  signal: AbortSignal,
): Promise<BranchCommits> {
  const local = await listLocalBranches(workspace, ctx.files);
  if (!local.ok) return { commit_warnings: [local.error.message] };
  const [commits] = await branchCommits(ctx, workspace, state, local.value, [branch], { signal });
  return commits ?? {};
}

/** `github` is the call's signal when GitHub's tools are on, `null` when they are disabled. */
async function prPart(
  ctx: ServiceContext,
  workspace: DiscoveredRepo,
  record: BranchRecord,
  github: AbortSignal | null,
): Promise<PrPart> {
  if (github === null) return { status: record.pr_number === undefined ? "not_linked" : "disabled" };
  const target = await resolveTarget(ctx, null, async () => ok(workspace));
  const call = target.ok ? await connect(ctx, target.value, github) : target;
  let number = record.pr_number;
  let found: PrSummary["found_by"] = "twig_link";
  if (number === undefined) {
    // Not linked by twig: GitHub may still have a PR from this branch.
    if (!call.ok) return { status: "not_linked" };
    const listed = await findBranchPr(call.value, record.branch, null);
    if (!listed.ok) return failed(listed.error);
    if (listed.value === null) return { status: "not_linked" };
    number = listed.value.number;
    found = "head_ref";
  }
  // No GitHub remote is a setup matter, not a failed lookup.
  if (!target.ok) return { status: "not_configured", error: target.error };
  if (!call.ok) return failed(call.error);
  const pr = await getPullRequest(call.value, number);
  const status = pr.ok ? await getPrDetails(call.value, pr.value) : pr;
  return status.ok ? { status: "ok", data: { ...summarizePr(status.value), found_by: found } } : failed(status.error);
}

async function jiraPart(invoke: ToolInvoker, linked: string | undefined): Promise<JiraPart> {
  if (linked === undefined) return { status: "not_linked" };
  const issue = await invoke(getJiraIssueTool, { issue_key: linked });
  if (issue === null) return { status: "disabled" };
  if (!issue.ok) return failed(issue.error);
  // Absent fields stay `undefined`, which JSON leaves out.
  const { key, summary, status, assignee, issue_type, url, description: text } = issue.value;
  const data = { key, summary, status, assignee, issue_type, url };
  if (text === undefined) return { status: "ok", data };
  const preview = { description: clip(text, DESCRIPTION_PREVIEW_CHARS), description_length: Array.from(text).length };
  return { status: "ok", data: { ...data, ...preview } };
}

/** A PR's status in a size that does not grow with its checks or reviews. */
export function summarizePr(status: PrStatus): PrSummary {
  const { pull_request: pr, summary } = status;
  const latest = summary.latest_reviews;
  const reviewed = (state: string) => names(latest.filter((review) => review.state === state).map((r) => r.author));
  const checks = judged(status.checks, status.statuses);
  const checked = (outcome: string) => names(checks.filter((c) => c.outcome === outcome).map((c) => c.name));
  return {
    number: pr.number,
    title: pr.title,
    url: pr.url,
    state: pr.merged ? "merged" : pr.state === "open" ? "open" : "closed",
    draft: pr.draft,
    mergeable: pr.mergeable,
    review_decision: summary.review,
    approved_by: reviewed("APPROVED"),
    changes_requested_by: reviewed("CHANGES_REQUESTED"),
    reviewers: latest.length,
    verdict: summary.verdict,
    checks: summary.checks,
    failing_checks: checked("failing"),
    pending_checks: checked("pending"),
  };
}

function names(list: readonly string[]): string[] {
  return list.slice(0, MAX_NAMES).map((name) => clip(name, MAX_NAME_CHARS));
}
