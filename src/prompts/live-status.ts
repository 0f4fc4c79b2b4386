import type { ToolError } from "../core/errors.ts";
import type { JiraSummary, PrSummary } from "../tools/branch-context.ts";

/** A live lookup that is simply not configured (no credentials, no JIRA_HOST) is left out silently. */
export function isUnconfigured(error: ToolError): boolean {
  return error.code === "credentials_missing";
}

export function describeFailure(error: ToolError): string {
  return `could not fetch (${error.code}: ${error.message})`;
}

/** `PR #42 "Add login" — open, reviews: approved by alice, CI: passing (3/3 checks)` */
export function formatPrStatus(pr: PrSummary): string {
  const state = pr.draft && pr.state === "open" ? "open (draft)" : pr.state;
  return `PR #${pr.number} "${pr.title}" — ${state}, reviews: ${reviewVerdict(pr)}, CI: ${ciVerdict(pr)}`;
}

function reviewVerdict(pr: PrSummary): string {
  const parts: string[] = [];
  if (pr.changes_requested_by.length > 0) parts.push(`changes requested by ${pr.changes_requested_by.join(", ")}`);
  if (pr.approved_by.length > 0) parts.push(`approved by ${pr.approved_by.join(", ")}`);
  if (parts.length === 0) parts.push(pr.reviewers > 0 ? "commented only" : "none yet");
  return parts.join("; ");
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
  const parts = [`status: ${issue.status}`];
  parts.push(`assignee: ${issue.assignee ?? "unassigned"}`);
  if (issue.issue_type) parts.push(`type: ${issue.issue_type}`);
  return `${issue.key} "${issue.summary}" — ${parts.join(", ")}`;
}

/** Maps with at most `limit` calls in flight, keeping input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
