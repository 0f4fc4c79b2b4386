import * as v from "valibot";
import { inline } from "../core/plain-text.ts";
import { compareBytewise } from "../git/bytewise.ts";
import { currentBranch, workspaceAndState } from "../repo/workspace.ts";
import { getJiraIssueTool } from "../tools/get-jira-issue.ts";
import type { TwigState } from "../twig/state.ts";
import { definePrompt, IssueKeyArg, RepoArg } from "./define.ts";
import { describeFailure, fenced, formatJiraIssue, isUnconfigured, jiraKeyText, listLine } from "./quote.ts";

const CLOSING =
  "Help me plan the work for this issue: summarize what is asked, list open questions, and propose the next steps.";

/** `plan-issue`: a Jira issue (default: the current branch's) and the branches linked to it. */
export const planIssuePrompt = definePrompt({
  name: "plan-issue",
  title: "Plan a Jira issue",
  description: "Plan the work for a Jira issue: its details, description and the branches linked to it.",
  args: v.object({ issue_key: IssueKeyArg, repo: RepoArg }),
  async render({ issue_key: issueKey, repo }, ctx, invoke) {
    const local = await workspaceAndState(ctx);
    const head = local.ok ? await currentBranch(local.value.workspace) : null;
    const current = local.ok && head?.ok ? local.value.state.branches.get(head.value.branch) : undefined;
    const key = issueKey ?? current?.jira_issue ?? null;
    if (key === null) return "The current branch has no linked Jira issue. Which issue should I look at?";

    const lines: string[] = [];
    // An argument is checked; a key from state may be anything the file's author wrote.
    const shownKey = issueKey ?? jiraKeyText(key);
    const issue = await invoke(getJiraIssueTool, { issue_key: key, repo });
    if (issue === null) lines.push(`Jira issue ${shownKey}: Jira is turned off in this server.`);
    else if (!issue.ok) {
      lines.push(
        isUnconfigured(issue.error)
          ? `Jira issue ${shownKey}: Jira is not configured here, so its details are unavailable (${inline(issue.error.message)}).`
          : `Jira issue ${shownKey}: ${describeFailure(issue.error)}`,
      );
    } else {
      const data = issue.value;
      lines.push(`Jira issue ${formatJiraIssue(data)}`);
      const extra = [
        data.priority && `priority: ${inline(data.priority, 80)}`,
        data.reporter && `reporter: ${inline(data.reporter, 80)}`,
      ].filter(Boolean);
      if (extra.length > 0) lines.push(extra.join(", "));
      const labels = data.labels.map((label) => inline(label, 80));
      lines.push(...listLine("Labels", labels), `URL: ${inline(data.url)}`);
      // The Jira author's text, fenced so it reads as a quotation and cannot close its fence.
      if (data.description?.trim()) lines.push("", "Description:", fenced(data.description.trim()));
    }
    const linked = local.ok ? linkedBranches(local.value.state, key) : [];
    if (linked.length > 0) lines.push("", ...listLine(`Branches linked to ${shownKey}`, linked, 100));
    return `${lines.join("\n")}\n\n${CLOSING}`;
  },
});

function linkedBranches(state: TwigState, key: string): string[] {
  const wanted = key.toUpperCase();
  return [...state.branches]
    .filter(([name, meta]) => meta.jira_issue?.toUpperCase() === wanted && !state.invalidNames.has(name))
    .map(([name, meta]) => (meta.github_pr == null ? name : `${name} (PR #${meta.github_pr})`))
    .sort(compareBytewise);
}
