import type { Context } from "../core/context.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import { loadState } from "../twig/state.ts";
import { describeFailure, formatPrStatus, isUnconfigured, type ToolInvoker } from "./live-status.ts";

const CLOSING =
  "Review where this pull request stands: what still blocks merging, which checks fail and why, and what I should do next.";

interface Check {
  name: string;
  status: string;
  conclusion: string | null;
}

/**
 * `review-pr`: one pull request's live state — reviews, failing and pending checks, description —
 * for the assistant to reason about what blocks it. Defaults to the current branch's linked PR.
 */
export async function prReviewText(
  ctx: Context,
  invoke: ToolInvoker,
  prNumber: number | undefined,
  repo: string | undefined,
): Promise<string> {
  const number = prNumber ?? (await linkedPr(ctx));
  if (number === null) {
    return "The current branch has no linked pull request. Which pull request should I look at?";
  }
  const status = await invoke(
    "get_pr_status",
    repo === undefined ? { pr_number: number } : { pr_number: number, repo },
  );
  if (status === null) return `Pull request #${number}: GitHub is turned off in this server.\n\n${CLOSING}`;
  if (!status.ok) {
    const why = isUnconfigured(status.error)
      ? `GitHub is not configured here, so its live status is unavailable (${status.error.message})`
      : describeFailure(status.error);
    return `Pull request #${number}: ${why}.\n\n${CLOSING}`;
  }
  const pr = status.value.pull_request as {
    base: string;
    head: string;
    url: string;
    body: string | null;
    labels: string[];
  };
  const checks = status.value.checks as Check[];
  const lines = [formatPrStatus(status.value), `Branches: ${pr.head} → ${pr.base}`, `URL: ${pr.url}`];
  const failing = checks.filter((c) => c.status === "completed" && isFailure(c.conclusion)).map(describeCheck);
  const pending = checks.filter((c) => c.status !== "completed").map((c) => c.name);
  if (failing.length > 0) lines.push(`Failing checks: ${failing.join(", ")}`);
  if (pending.length > 0) lines.push(`Pending checks: ${pending.join(", ")}`);
  if (pr.labels.length > 0) lines.push(`Labels: ${pr.labels.join(", ")}`);
  if (pr.body?.trim()) lines.push("", "Description:", pr.body.trim());
  return `${lines.join("\n")}\n\n${CLOSING}`;
}

function isFailure(conclusion: string | null): boolean {
  return conclusion !== null && !["success", "neutral", "skipped"].includes(conclusion);
}

function describeCheck(check: Check): string {
  return `${check.name} (${check.conclusion})`;
}

async function linkedPr(ctx: Context): Promise<number | null> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return null;
  const [current, state] = await Promise.all([
    currentBranch(ctx, workspace.value),
    loadState(ctx, workspace.value.workTree),
  ]);
  if (!current.ok || !state.ok) return null;
  return state.value.branches.get(current.value.branch)?.github_pr ?? null;
}
