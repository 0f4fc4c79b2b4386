import type { BranchRecord } from "../twig/branch-record.ts";
import { describeFailure, formatPrStatus, isUnconfigured, mapBounded, type ToolInvoker } from "./live-status.ts";

const CLOSING =
  "Summarize the current state of this PR stack. For each branch, describe its review status and CI results.";

/** GitHub allows bursts, but a prompt should not fire one request per branch at once. */
const PR_CONCURRENCY = 4;

/**
 * twig-mcp's `stack-status` text (twig-reference §8.7): current branch, every tree, the tracked
 * branches' links; then, when GitHub is configured, each linked PR's live state, reviews and CI.
 * Every part is optional: a failure drops its section, never the prompt.
 */
export async function stackStatusText(invoke: ToolInvoker, repo: string | undefined): Promise<string> {
  const withRepo = (args: Record<string, unknown> = {}) => (repo === undefined ? args : { ...args, repo });
  const [current, tree, tracked] = await Promise.all([
    invoke("get_current_branch", withRepo()),
    invoke("get_branch_tree", withRepo()),
    invoke("list_branches", withRepo()),
  ]);
  const sections: string[] = [];

  if (current?.ok) sections.push(`Current branch: ${current.value.branch as string}`);
  else if (current && current.error.code === "not_found") sections.push("Current branch: none (detached HEAD)");
  // What the tools would tell the model, hint included, rather than a bare "no data".
  else if (current && current.error.code === "no_repo")
    sections.push(`no_repo: ${current.error.message} ${current.error.hint ?? ""}`.trimEnd());

  if (tree?.ok) {
    const roots = (tree.value.branches as unknown[]).length;
    const heading = roots > 1 ? "Branch dependency trees" : "Branch dependency tree";
    sections.push(`${heading}:\n\`\`\`\n${tree.value.tree_text as string}\`\`\``);
  }

  if (tracked && !tracked.ok && tracked.error.code !== "no_repo") {
    sections.push(`${tracked.error.code}: ${tracked.error.message} ${tracked.error.hint ?? ""}`.trimEnd());
  }

  const records = tracked?.ok ? (tracked.value.branches as BranchRecord[]) : [];
  if (records.length > 0) {
    const lines = records.map((record) => {
      const parts = [record.branch];
      if (record.jira_issue !== undefined) parts.push(`Jira: ${record.jira_issue}`);
      if (record.pr_number !== undefined) parts.push(`PR: #${record.pr_number}`);
      if (record.parent_branch !== undefined) parts.push(`parent: ${record.parent_branch}`);
      return `\n- ${parts.join(" | ")}`;
    });
    sections.push(`Branch details:${lines.join("")}`);
  }

  const live = await livePullRequests(invoke, records, withRepo);
  if (live !== null) sections.push(live);

  if (sections.length === 0) sections.push("No repository or branch data available.");
  return `${sections.join("\n\n")}\n\n${CLOSING}`;
}

async function livePullRequests(
  invoke: ToolInvoker,
  records: readonly BranchRecord[],
  withRepo: (args: Record<string, unknown>) => Record<string, unknown>,
): Promise<string | null> {
  const linked = records.filter((record) => record.pr_number !== undefined);
  if (linked.length === 0) return null;
  const results = await mapBounded(linked, PR_CONCURRENCY, (record) =>
    invoke("get_pr_status", withRepo({ pr_number: record.pr_number })),
  );
  const lines: string[] = [];
  results.forEach((result, index) => {
    const record = linked[index] as BranchRecord;
    if (result === null || (!result.ok && isUnconfigured(result.error))) return;
    const status = result.ok
      ? formatPrStatus(result.value)
      : `PR #${record.pr_number} ${describeFailure(result.error)}`;
    lines.push(`\n- ${record.branch}: ${status}`);
  });
  return lines.length > 0 ? `Pull request status (live from GitHub):${lines.join("")}` : null;
}
