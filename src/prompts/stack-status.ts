import * as v from "valibot";
import { inline } from "../core/plain-text.ts";
import { sortBytewise } from "../git/bytewise.ts";
import { workspaceAndState } from "../repo/workspace.ts";
import { getBranchTreeTool } from "../tools/get-branch-tree.ts";
import { getCurrentBranchTool } from "../tools/get-current-branch.ts";
import { getStackStatusTool } from "../tools/get-stack-status.ts";
import type { ToolInvoker } from "../tools/shared/define.ts";
import { branchRecord, branchStack } from "../twig/branch-record.ts";
import type { TwigState } from "../twig/state.ts";
import { definePrompt, RepoArg } from "./define.ts";
import { branchText, failure, fenced, jiraKeyText } from "./quote.ts";

const CLOSING =
  "Summarize the current state of this PR stack. For each branch, describe its review status and CI results.";
const CLOSING_WITHOUT_GITHUB =
  "Summarize the current state of this PR stack from the branch data above. GitHub's review status and CI results are not available here: say so, and do not describe or guess them.";

/** What one prompt reads at most: a 500,000-branch state otherwise held the server for half a minute. */
const PROMPT_MAX_BRANCHES = 100;
const PROMPT_MAX_TREE_LINES = 200;

/** `stack-status`: current branch, trees, tracked branches, live state; a failure drops its section, not the prompt. */
export const stackStatusPrompt = definePrompt({
  name: "stack-status",
  title: "PR stack status",
  description: "Summarize the current state of my PR stack, including review status and CI results.",
  args: v.object({ repo: RepoArg }),
  async render({ repo }, ctx, invoke) {
    const [current, tree, local] = await Promise.all([
      invoke(getCurrentBranchTool, { repo }),
      invoke(getBranchTreeTool, { repo }),
      workspaceAndState(ctx),
    ]);
    const sections: string[] = [];

    if (current?.ok) sections.push(`Current branch: ${inline(current.value.branch)}`);
    else if (current && current.error.code === "not_found") sections.push("Current branch: none (detached HEAD)");
    // What the tools would tell the model, hint included, rather than a bare "no data".
    else if (current && current.error.code === "no_repo") sections.push(failure(current.error));

    if (tree?.ok) {
      const heading = tree.value.branches.length > 1 ? "Branch dependency trees" : "Branch dependency tree";
      sections.push(`${heading}:\n${fenced(firstLines(tree.value.tree_text, PROMPT_MAX_TREE_LINES))}`);
    }

    if (!local.ok && local.error.code !== "no_repo") sections.push(failure(local.error));

    const branch = current?.ok ? current.value.branch : null;
    const chosen = local.ok ? chooseRecords(local.value.state, branch) : null;
    if (chosen !== null && chosen.records.length > 0) {
      const lines = chosen.records.map((record) => {
        const parts = [inline(record.branch)];
        if (record.jira_issue !== undefined) parts.push(`Jira: ${jiraKeyText(record.jira_issue)}`);
        if (record.pr_number !== undefined) parts.push(`PR: #${record.pr_number}`);
        if (record.parent_branch !== undefined) parts.push(`parent: ${branchText(record.parent_branch)}`);
        return `\n- ${parts.join(" | ")}`;
      });
      if (chosen.omitted > 0) {
        lines.push(`\n- … ${chosen.omitted} more tracked branches not listed here (list_branches has them all)`);
      }
      if (chosen.invalid > 0) {
        lines.push(
          `\n- (${chosen.invalid} records in .twig/state.json have names git would refuse; they were left out)`,
        );
      }
      sections.push(`Branch details:${lines.join("")}`);
    }

    const live = await liveStack(invoke, branch, repo);
    if (live.section !== null) sections.push(live.section);

    if (sections.length === 0) sections.push("No repository or branch data available.");
    return `${sections.join("\n\n")}\n\n${live.github ? CLOSING : CLOSING_WITHOUT_GITHUB}`;
  },
});

/** Up to {@link PROMPT_MAX_BRANCHES} valid names, sorted: the current stack, then the first names. */
function chooseRecords(state: TwigState, current: string | null) {
  const isValid = (name: string) => state.branches.has(name) && !state.invalidNames.has(name);
  const valid = sortBytewise([...state.branches.keys()].filter(isValid));
  const stack = current === null ? [] : branchStack(state, current).stack.map(({ branch }) => branch);
  const names = new Set(stack.filter(isValid).slice(0, PROMPT_MAX_BRANCHES));
  for (const name of valid) {
    if (names.size >= PROMPT_MAX_BRANCHES) break;
    names.add(name);
  }
  return {
    records: sortBytewise([...names]).map((name) => branchRecord(state, name)),
    omitted: valid.length - names.size,
    invalid: state.branches.size - valid.length,
  };
}

function firstLines(text: string, max: number): string {
  const lines = text.split("\n");
  const rest = lines.slice(max);
  if (rest.join("\n") === "") return text;
  const more = rest.filter((line) => line !== "").length;
  return `${lines.slice(0, max).join("\n")}\n… ${more} more lines not shown (get_branch_tree with branch=<root> draws a part)\n`;
}

/** get_stack_status's summary and lines, fenced as data; `github`: whether GitHub answered. */
async function liveStack(invoke: ToolInvoker, branch: string | null, repo: string | undefined) {
  const result = await invoke(getStackStatusTool, branch === null ? { scope: "all", repo } : { branch, repo });
  if (result === null || !result.ok) return { section: null, github: false };
  const { summary, lines, github, next_cursor, branches } = result.value;
  // Some PRs unread is GitHub's error too, but what it did answer is live: only a whole failure is "not answered".
  const answered = github === undefined || (github.status === "error" && branches.some((b) => b.pr?.state));
  if (lines.length === 0) return { section: null, github: answered };
  const more = next_cursor === undefined ? "" : "\n… more branches on the next page of get_stack_status";
  const heading = answered ? "Stack status (live from GitHub)" : "Stack status";
  // The summary line already quotes GitHub's message; what to do about it is said here, once.
  const missing =
    github === undefined
      ? ""
      : `\nGitHub: ${github.status.replace("_", " ")}${github.error?.hint ? `. ${github.error.hint}` : ""}`;
  return { section: `${heading}:\n${fenced([summary, ...lines].join("\n"))}${more}${missing}`, github: answered };
}
