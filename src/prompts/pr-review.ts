import * as v from "valibot";
import { inline, quoted } from "../core/plain-text.ts";
import type { Result } from "../core/result.ts";
import { classifyCheck, classifyStatus } from "../github/pr-status.ts";
import { checkedOutRecord } from "../repo/workspace.ts";
import { getPrStatusTool } from "../tools/get-pr-status.ts";
import { getReviewThreadsTool } from "../tools/get-review-threads.ts";
import { summarizePr } from "../tools/shared/branch-pr.ts";
import { definePrompt, PrNumberArg, RepoArg } from "./define.ts";
import { describeFailure, fenced, formatPrStatus, isUnconfigured, listLine } from "./quote.ts";

const CLOSING =
  "Review where this pull request stands: what still blocks merging, which checks fail and why, and what I should do next.";
const CLOSING_WITHOUT_GITHUB =
  "GitHub's reviews and checks for this pull request are not available here: say so, do not describe or guess them, and tell me how to make them available.";

/** `review-pr`: a pull request's live state (default: the current branch's), to see what blocks it. */
export const reviewPrPrompt = definePrompt({
  name: "review-pr",
  title: "Review a pull request",
  description: "What blocks this pull request? Its reviews, failing and pending checks, and description.",
  args: v.object({ pr_number: PrNumberArg, repo: RepoArg }),
  async render({ pr_number: prNumber, repo }, ctx, invoke) {
    const local = prNumber === undefined ? await checkedOutRecord(ctx) : null;
    const linked = prNumber ?? (local?.ok ? local.value.record?.github_pr : null) ?? null;
    // Without a number or a link, get_pr_status looks the branch's PR up on GitHub.
    // With the number known, the threads are asked for beside the status.
    const threadsOf = (pr_number: number) => invoke(getReviewThreadsTool, { pr_number, repo });
    const early = linked === null ? null : threadsOf(linked);
    const status = await invoke(getPrStatusTool, linked === null ? { repo } : { pr_number: linked, repo });
    const which = linked === null ? "The current branch's pull request" : `Pull request #${linked}`;
    if (status === null) return `${which}: GitHub is turned off in this server.\n\n${CLOSING_WITHOUT_GITHUB}`;
    if (!status.ok) {
      if (linked === null && status.error.code === "not_found") {
        return "The current branch has no linked pull request, and GitHub has none from it. Which pull request should I look at?";
      }
      const why = isUnconfigured(status.error)
        ? `GitHub is not configured here, so its live status is unavailable (${inline(status.error.message)})`
        : describeFailure(status.error);
      return `${which}: ${why}.\n\n${CLOSING_WITHOUT_GITHUB}`;
    }
    const { pull_request: pr, checks, statuses, summary, reasons } = status.value;
    const lines = [
      formatPrStatus(summarizePr(status.value)),
      `Branches: ${inline(pr.head)} → ${inline(pr.base)}`,
      `URL: ${inline(pr.url)}`,
    ];
    if (status.value.found_by === "head_ref")
      lines.push("Found as the pull request from the current branch (twig links none).");
    // The reviewers' and CI's text, each one line and quoted: data, not instructions.
    const changes = reasons.changes_requested.map(
      (r) => `${inline(r.author, 80)}${r.excerpt === undefined ? "" : `: ${quoted(r.excerpt, 300)}`}`,
    );
    const waiting = pr.requested_reviewers.map((name) => inline(name, 80));
    lines.push(...listLine("Changes requested by", changes), ...listLine("Waiting for review from", waiting));
    // Check runs and commit statuses alike, so the count and the list always agree.
    const failing = reasons.failing.map(
      (f) => `${inline(f.name, 120)}${f.excerpt === undefined ? "" : ` (${quoted(f.excerpt, 400)})`}`,
    );
    lines.push(...countedList("Failing checks", failing, summary.checks.failing));
    // get_ci_log shares get_pr_status's group, so it is on whenever this answer came back.
    if (summary.checks.failing > 0) {
      lines.push(`For why they fail, call get_ci_log with pr_number ${pr.number}: it reads the failing checks' logs.`);
    }
    lines.push(...threadLines(await (early ?? threadsOf(pr.number)), pr.number));
    const pending = [
      ...checks.filter((c) => classifyCheck(c) === "pending").map((c) => inline(c.name, 120)),
      ...statuses.filter((s) => classifyStatus(s) === "pending").map((s) => inline(s.context, 120)),
    ];
    const labels = pr.labels.map((label) => inline(label, 80));
    lines.push(...countedList("Pending checks", pending, summary.checks.pending), ...listLine("Labels", labels));
    // The PR author's text, fenced so it reads as a quotation and cannot close its fence.
    if (pr.body?.trim()) lines.push("", "Description:", fenced(pr.body.trim()));
    return `${lines.join("\n")}\n\n${CLOSING}`;
  },
});

/** `Heading (n): a, b, … and k more` where n counts every one, listed or not. */
function countedList(heading: string, items: readonly string[], total: number): string[] {
  if (total === 0) return [];
  const shown = items.slice(0, 50);
  const more = total > shown.length ? [`… and ${total - shown.length} more (get_pr_status lists them all)`] : [];
  return [`${heading} (${total}): ${[...shown, ...more].join(", ")}`];
}

/** The unresolved threads, one line each (a reviewer's words quoted), or why they are missing. */
function threadLines(
  threads: Result<v.InferOutput<typeof getReviewThreadsTool.output>> | null,
  number: number,
): string[] {
  if (threads === null) return [];
  if (!threads.ok) return [`Review threads: unavailable (${describeFailure(threads.error)}).`];
  const { unresolved_threads: open, lines } = threads.value;
  if (open === 0) return ["Unresolved review threads: none."];
  const more = open > lines.length ? [`… and ${open - lines.length} more`] : [];
  return [
    `Unresolved review threads (${open}):`,
    ...[...lines, ...more].map((line) => `- ${line}`),
    `For the commented code, every reply and suggestions, call get_review_threads with pr_number ${number}.`,
  ];
}
