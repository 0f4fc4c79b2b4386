import type { ToolError } from "../core/errors.ts";
import type { Result } from "../core/result.ts";

/** Runs an enabled tool by name for a prompt or resource; `null` when that tool is turned off. */
export type ToolInvoker = (
  name: string,
  args: Record<string, unknown>,
) => Promise<Result<Record<string, unknown>> | null>;

/** A live lookup that is simply not configured (no credentials, no JIRA_HOST) is left out silently. */
export function isUnconfigured(error: ToolError): boolean {
  return error.code === "credentials_missing";
}

export function describeFailure(error: ToolError): string {
  return `could not fetch (${error.code}: ${error.message})`;
}

interface PrStatusData {
  pull_request: { number: number; title: string; state: string; draft: boolean; merged: boolean; url: string };
  summary: {
    latest_reviews: Array<{ author: string; state: string }>;
    checks: { total: number; passing: number; failing: number; pending: number };
    verdict: string;
  };
}

/** `PR #42 "Add login" — open, reviews: approved by alice, CI: passing (3/3 checks)` */
export function formatPrStatus(data: Record<string, unknown>): string {
  const { pull_request: pr, summary } = data as unknown as PrStatusData;
  const state = pr.merged ? "merged" : pr.draft && pr.state === "open" ? "open (draft)" : pr.state;
  return `PR #${pr.number} "${pr.title}" — ${state}, reviews: ${reviewVerdict(summary.latest_reviews)}, CI: ${ciVerdict(summary)}`;
}

function reviewVerdict(reviews: PrStatusData["summary"]["latest_reviews"]): string {
  const by = (state: string) => reviews.filter((r) => r.state === state).map((r) => r.author);
  const parts: string[] = [];
  const changes = by("CHANGES_REQUESTED");
  const approved = by("APPROVED");
  if (changes.length > 0) parts.push(`changes requested by ${changes.join(", ")}`);
  if (approved.length > 0) parts.push(`approved by ${approved.join(", ")}`);
  if (parts.length === 0) parts.push(reviews.length > 0 ? "commented only" : "none yet");
  return parts.join("; ");
}

function ciVerdict({ checks, verdict }: PrStatusData["summary"]): string {
  if (verdict === "no_checks" || checks.total === 0) return "no checks";
  const counts = [`${checks.passing}/${checks.total} passing`];
  if (checks.failing > 0) counts.push(`${checks.failing} failing`);
  if (checks.pending > 0) counts.push(`${checks.pending} pending`);
  return `${verdict} (${counts.join(", ")})`;
}

interface JiraIssueData {
  key: string;
  summary: string;
  status: string;
  assignee?: string;
  issue_type?: string;
}

/** `SHOP-123 "Checkout fails for guests" — status: In Progress, assignee: Alice, type: Bug` */
export function formatJiraIssue(data: Record<string, unknown>): string {
  const issue = data as unknown as JiraIssueData;
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
