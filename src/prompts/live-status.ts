import type { Context } from "../core/context.ts";
import type { ToolError } from "../core/errors.ts";
import { inline, quoted } from "../core/plain-text.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import type { JiraSummary, PrSummary } from "../tools/branch-context.ts";
import type { BranchMetadata } from "../twig/schemas.ts";
import { loadState, type TwigState } from "../twig/state.ts";

/** A live lookup that is simply not configured (no credentials, no JIRA_HOST) is left out silently. */
export function isUnconfigured(error: ToolError): boolean {
  return error.code === "credentials_missing";
}

/** An error as a tool would report it: code, message and hint. */
export function failure(error: ToolError): string {
  return `${error.code}: ${error.message}${error.hint ? ` ${error.hint}` : ""}`;
}

export function describeFailure(error: ToolError): string {
  return `could not fetch (${error.code}: ${inline(error.message)})`;
}

/** `PR #42 "Add login" — open, reviews: approved by alice, CI: passing (3/3 checks)` */
export function formatPrStatus(pr: PrSummary): string {
  const state = pr.draft && pr.state === "open" ? "open (draft)" : pr.state;
  // The title is the PR author's: quoted, so it cannot end its quote or the line.
  return `PR #${pr.number} ${quoted(pr.title)} — ${state}, reviews: ${reviewVerdict(pr)}, CI: ${ciVerdict(pr)}`;
}

function reviewVerdict(pr: PrSummary): string {
  const parts: string[] = [];
  if (pr.changes_requested_by.length > 0) parts.push(`changes requested by ${logins(pr.changes_requested_by)}`);
  if (pr.approved_by.length > 0) parts.push(`approved by ${logins(pr.approved_by)}`);
  if (parts.length === 0) parts.push(pr.reviewers > 0 ? "commented only" : "none yet");
  return parts.join("; ");
}

/** summarizePr already lists at most 10 names. */
function logins(names: readonly string[]): string {
  return names.map((name) => inline(name, 60)).join(", ");
}

function ciVerdict({ checks, verdict }: PrSummary): string {
  if (verdict === "no_checks" || checks.total === 0) return "no checks";
  const counts = [`${checks.passing}/${checks.total} passing`];
  if (checks.failing > 0) counts.push(`${checks.failing} failing`);
  if (checks.pending > 0) counts.push(`${checks.pending} pending`);
  return `${verdict} (${counts.join(", ")})`;
}

/** `SHOP-123 "Checkout fails for guests" — status: In Progress, assignee: Alice, type: Bug` */
export function formatJiraIssue(issue: Pick<JiraSummary, "key" | "summary" | "status" | "assignee" | "issue_type">) {
  const parts = [`status: ${inline(issue.status, 80)}`];
  parts.push(`assignee: ${issue.assignee == null ? "unassigned" : inline(issue.assignee, 80)}`);
  if (issue.issue_type) parts.push(`type: ${inline(issue.issue_type, 80)}`);
  // The summary is the Jira author's: quoted, so it cannot end its quote or the line.
  return `${inline(issue.key, 80)} ${quoted(issue.summary)} — ${parts.join(", ")}`;
}

/** The prompt repository's state and the checked-out branch's record in it; `null` when unreadable. */
export async function localState(ctx: Context): Promise<{ state: TwigState; current?: BranchMetadata } | null> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return null;
  const [current, state] = await Promise.all([
    currentBranch(ctx, workspace.value),
    loadState(ctx, workspace.value.workTree),
  ]);
  if (!state.ok) return null;
  return { state: state.value, ...(current.ok ? { current: state.value.branches.get(current.value.branch) } : {}) };
}
