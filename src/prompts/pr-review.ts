import * as v from "valibot";
import { classifyCheck } from "../github/pr-status.ts";
import { summarizePr } from "../tools/branch-context.ts";
import { getPrStatusTool } from "../tools/github.ts";
import { PrNumberArg, RepoArg } from "./args.ts";
import { definePrompt } from "./define.ts";
import { describeFailure, formatPrStatus, isUnconfigured, localState } from "./live-status.ts";
import { fenced, inline, listLine } from "./quote.ts";

const CLOSING =
  "Review where this pull request stands: what still blocks merging, which checks fail and why, and what I should do next.";

/** `review-pr`: a pull request's live state (default: the current branch's), to see what blocks it. */
export const reviewPrPrompt = definePrompt({
  name: "review-pr",
  title: "Review a pull request",
  description: "What blocks this pull request? Its reviews, failing and pending checks, and description.",
  args: v.object({ pr_number: PrNumberArg, repo: RepoArg }),
  async render({ pr_number: prNumber, repo }, ctx, invoke) {
    const number = prNumber ?? (await localState(ctx))?.current?.github_pr ?? null;
    if (number === null) {
      return "The current branch has no linked pull request. Which pull request should I look at?";
    }
    const status = await invoke(getPrStatusTool, { pr_number: number, repo });
    if (status === null) return `Pull request #${number}: GitHub is turned off in this server.\n\n${CLOSING}`;
    if (!status.ok) {
      const why = isUnconfigured(status.error)
        ? `GitHub is not configured here, so its live status is unavailable (${status.error.message})`
        : describeFailure(status.error);
      return `Pull request #${number}: ${why}.\n\n${CLOSING}`;
    }
    const { pull_request: pr, checks } = status.value;
    const lines = [
      formatPrStatus(summarizePr(status.value)),
      `Branches: ${inline(pr.head)} → ${inline(pr.base)}`,
      `URL: ${inline(pr.url)}`,
    ];
    const failing = checks
      .filter((c) => classifyCheck(c) === "failing")
      .map((c) => `${inline(c.name, 120)} (${inline(c.conclusion ?? "", 40)})`);
    const pending = checks.filter((c) => c.status !== "completed").map((c) => inline(c.name, 120));
    lines.push(...listLine("Failing checks", failing), ...listLine("Pending checks", pending));
    const labels = pr.labels.map((label) => inline(label, 80));
    lines.push(...listLine("Labels", labels));
    // The PR author's text, fenced so it reads as a quotation and cannot close its fence.
    if (pr.body?.trim()) lines.push("", "Description:", fenced(pr.body.trim()));
    return `${lines.join("\n")}\n\n${CLOSING}`;
  },
});
