import type { ToolError } from "../core/errors.ts";
import { inline, plainText, quoted } from "../core/plain-text.ts";
import { checkBranchName } from "../git/refname.ts";
import type { JiraSummary } from "../tools/get-branch-context.ts";
import type { PrSummary } from "../tools/shared/branch-pr.ts";
import { STORED_JIRA_KEY } from "../twig/state.ts";

/** Others' text in a prompt (sent as the *user's* message) must read as data: one line, quoted or fenced. */

/** A branch name: as it is when git would accept it, quoted (and marked) when not. */
export function branchText(name: string): string {
  return checkBranchName(name) === null ? inline(name, 300) : `${quoted(name, 80)} (not a valid branch name)`;
}

/** A `jira_issue` from state: as it is when twig could have written it, quoted (and marked) when not. */
export function jiraKeyText(key: string): string {
  return STORED_JIRA_KEY.test(key) ? key : `${quoted(key, 80)} (not a Jira key)`;
}

/** `text` in a Markdown fence longer than any backtick run inside it, so nothing in it closes the fence. */
export function fenced(text: string): string {
  const clean = plainText(text);
  const longest = (clean.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${clean.endsWith("\n") ? clean : `${clean}\n`}${fence}`;
}

/** `Heading: a, b` with at most `max` items, then how many were left out; nothing when there are none. */
export function listLine(heading: string, items: readonly string[], max = 50): string[] {
  if (items.length === 0) return [];
  const more = items.length > max ? [`… and ${items.length - max} more`] : [];
  return [`${heading}: ${[...items.slice(0, max), ...more].join(", ")}`];
}

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
  // summarizePr lists at most 10 names.
  const logins = (names: readonly string[]) => names.map((name) => inline(name, 60)).join(", ");
  const reviews: string[] = [];
  if (pr.changes_requested_by.length > 0) reviews.push(`changes requested by ${logins(pr.changes_requested_by)}`);
  if (pr.approved_by.length > 0) reviews.push(`approved by ${logins(pr.approved_by)}`);
  if (reviews.length === 0) reviews.push(pr.reviewers > 0 ? "commented only" : "none yet");
  const { checks, verdict } = pr;
  let ci = "no checks";
  if (verdict !== "no_checks" && checks.total > 0) {
    const counts = [`${checks.passing}/${checks.total} passing`];
    if (checks.failing > 0) counts.push(`${checks.failing} failing`);
    if (checks.pending > 0) counts.push(`${checks.pending} pending`);
    ci = `${verdict} (${counts.join(", ")})`;
  }
  // The title is the PR author's: quoted, so it cannot end its quote or the line.
  return `PR #${pr.number} ${quoted(pr.title)} — ${state}, reviews: ${reviews.join("; ")}, CI: ${ci}`;
}

/** `SHOP-123 "Checkout fails for guests" — status: In Progress, assignee: Alice, type: Bug` */
export function formatJiraIssue(issue: Pick<JiraSummary, "key" | "summary" | "status" | "assignee" | "issue_type">) {
  const parts = [`status: ${inline(issue.status, 80)}`];
  parts.push(`assignee: ${issue.assignee == null ? "unassigned" : inline(issue.assignee, 80)}`);
  if (issue.issue_type) parts.push(`type: ${inline(issue.issue_type, 80)}`);
  // The summary is the Jira author's: quoted, so it cannot end its quote or the line.
  return `${inline(issue.key, 80)} ${quoted(issue.summary)} — ${parts.join(", ")}`;
}
