import type { Context } from "../core/context.ts";
import type { ToolError } from "../core/errors.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import { branchRecord } from "../twig/branch-record.ts";
import { loadState } from "../twig/state.ts";
import { describeFailure, formatJiraIssue, formatPrStatus, isUnconfigured, type ToolInvoker } from "./live-status.ts";

const NO_BRANCH = "I'm not currently on a git branch. What should I work on?";
const NO_REPO_CLOSING = "Help me open or choose the repository I'm working in.";
const CLOSING =
  "Describe what I'm working on based on this branch context, including the linked Jira issue and pull request status.";

/**
 * twig-mcp's `branch-context` text (twig-reference §8.7), plus the linked Jira issue's summary and
 * status and the PR's live state when those services are configured.
 */
export async function branchContextText(
  ctx: Context,
  invoke: ToolInvoker,
  branchArg: string | undefined,
  repo: string | undefined,
): Promise<string> {
  const workspace = await openWorkspace(ctx);
  let branch = branchArg;
  if (branch === undefined && workspace.ok) {
    const current = await currentBranch(ctx, workspace.value);
    if (current.ok) branch = current.value.branch;
  }
  // Outside a repository the prompt says what the tools would say (no_repo and its hint), not
  // "not on a branch", which would send the model looking for a checkout that is not there.
  if (branch === undefined) return workspace.ok ? NO_BRANCH : `${failure(workspace.error)}\n\n${NO_REPO_CLOSING}`;

  const lines = [`Branch: ${branch}`];
  if (!workspace.ok) lines.push(failure(workspace.error));
  const state = workspace.ok ? await loadState(ctx, workspace.value.workTree) : null;
  if (state && !state.ok) lines.push(failure(state.error));
  if (state?.ok && !state.value.branches.has(branch)) {
    const parent = branchRecord(state.value, branch).parent_branch;
    lines.push(
      `Not tracked by twig: no Jira issue or PR is recorded for '${branch}'${parent === undefined ? "" : ` (its declared parent is ${parent})`}. Use list_branches to see tracked branches.`,
    );
  } else if (state?.ok) {
    const record = branchRecord(state.value, branch);
    lines.push(`Parent branch: ${record.parent_branch ?? "none"}`);
    lines.push(
      record.jira_issue !== undefined ? `Linked Jira issue: ${record.jira_issue}` : "No linked Jira issue found.",
    );
    lines.push(record.pr_number !== undefined ? `Linked PR: #${record.pr_number}` : "No linked pull request found.");
    if (record.created_at !== undefined) lines.push(`Created: ${record.created_at}`);

    const withRepo = (args: Record<string, unknown>) => (repo === undefined ? args : { ...args, repo });
    const [jira, pr] = await Promise.all([
      record.jira_issue === undefined ? null : invoke("get_jira_issue", withRepo({ issue_key: record.jira_issue })),
      record.pr_number === undefined ? null : invoke("get_pr_status", withRepo({ pr_number: record.pr_number })),
    ]);
    if (jira && !(!jira.ok && isUnconfigured(jira.error))) {
      lines.push(
        `Jira issue: ${jira.ok ? formatJiraIssue(jira.value) : `${record.jira_issue} ${describeFailure(jira.error)}`}`,
      );
    }
    if (pr && !(!pr.ok && isUnconfigured(pr.error))) {
      lines.push(
        `Pull request: ${pr.ok ? formatPrStatus(pr.value) : `#${record.pr_number} ${describeFailure(pr.error)}`}`,
      );
    }
  }
  return `${lines.join("\n")}\n\n${CLOSING}`;
}

/** An error as a tool would report it: code, message and hint. */
function failure(error: ToolError): string {
  return `${error.code}: ${error.message}${error.hint ? ` ${error.hint}` : ""}`;
}
