import * as v from "valibot";
import { compareBytewise } from "../git/bytewise.ts";
import { workspaceAndState } from "../repo/workspace.ts";
import { summarizePr } from "../tools/branch-context.ts";
import type { ToolInvoker } from "../tools/define.ts";
import { getBranchTreeTool } from "../tools/get-branch-tree.ts";
import { getCurrentBranchTool } from "../tools/get-current-branch.ts";
import { getPrStatusTool } from "../tools/github.ts";
import { type BranchRecord, branchRecord, branchStack } from "../twig/branch-record.ts";
import { sortedIndex } from "../twig/graph.ts";
import type { TwigState } from "../twig/state.ts";
import { RepoArg } from "./args.ts";
import { definePrompt } from "./define.ts";
import { describeFailure, failure, formatPrStatus, isUnconfigured } from "./live-status.ts";
import { branchText, fenced, inline, jiraKeyText } from "./quote.ts";

const CLOSING =
  "Summarize the current state of this PR stack. For each branch, describe its review status and CI results.";

/** What one prompt reads at most: a 500,000-branch state otherwise held the server for half a minute. */
const PROMPT_MAX_BRANCHES = 100;
const PROMPT_MAX_PR_LOOKUPS = 20;
const PROMPT_MAX_TREE_LINES = 200;

/**
 * twig-mcp's `stack-status` text (§8.7): current branch, trees, tracked branches, then live PR
 * states. A failure drops its section, never the prompt; names git would refuse are left out.
 */
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

    const chosen = local.ok ? chooseRecords(local.value.state, current?.ok ? current.value.branch : null) : null;
    const records = chosen?.records ?? [];
    if (chosen !== null && records.length > 0) {
      const lines = records.map((record) => {
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

    const live = await livePullRequests(invoke, records, repo);
    if (live !== null) sections.push(live);

    if (sections.length === 0) sections.push("No repository or branch data available.");
    return `${sections.join("\n\n")}\n\n${CLOSING}`;
  },
});

/** Up to {@link PROMPT_MAX_BRANCHES} valid names, sorted: the current stack, then the first names. One pass. */
function chooseRecords(
  state: TwigState,
  current: string | null,
): { records: BranchRecord[]; omitted: number; invalid: number } {
  const picked = new Set<string>();
  if (current !== null) {
    for (const { branch } of branchStack(state, current).stack) {
      if (picked.size >= PROMPT_MAX_BRANCHES) break;
      if (state.branches.has(branch) && !state.invalidNames.has(branch)) picked.add(branch);
    }
  }
  let valid = 0;
  // The smallest names, kept sorted; a name enters only when it beats the largest kept.
  const first: string[] = [];
  const room = PROMPT_MAX_BRANCHES - picked.size;
  for (const name of state.branches.keys()) {
    if (state.invalidNames.has(name)) continue;
    valid++;
    if (picked.has(name) || room === 0) continue;
    if (first.length === room && compareBytewise(name, first[room - 1] as string) >= 0) continue;
    first.splice(sortedIndex(first, name), 0, name);
    if (first.length > room) first.pop();
  }
  const names = [...picked, ...first].sort(compareBytewise);
  return {
    records: names.map((name) => branchRecord(state, name)),
    omitted: valid - names.length,
    invalid: state.branches.size - valid,
  };
}

function firstLines(text: string, max: number): string {
  const lines = text.split("\n");
  const rest = lines.slice(max);
  if (rest.join("\n") === "") return text;
  const more = rest.filter((line) => line !== "").length;
  return `${lines.slice(0, max).join("\n")}\n… ${more} more lines not shown (get_branch_tree with branch=<root> draws a part)\n`;
}

async function livePullRequests(
  invoke: ToolInvoker,
  records: readonly BranchRecord[],
  repo: string | undefined,
): Promise<string | null> {
  const linked = records.filter((record) => record.pr_number !== undefined);
  const asked = linked.slice(0, PROMPT_MAX_PR_LOOKUPS);
  const lines: string[] = [];
  // All at once: at most PROMPT_MAX_PR_LOOKUPS, and the GitHub client caps the requests in flight.
  const results = await Promise.all(asked.map(({ pr_number }) => invoke(getPrStatusTool, { pr_number, repo })));
  results.forEach((result, index) => {
    if (result === null || (!result.ok && isUnconfigured(result.error))) return;
    const record = asked[index] as BranchRecord;
    const status = result.ok
      ? formatPrStatus(summarizePr(result.value))
      : `PR #${record.pr_number} ${describeFailure(result.error)}`;
    lines.push(`\n- ${inline(record.branch)}: ${status}`);
  });
  if (lines.length === 0) return null;
  if (linked.length > asked.length) {
    lines.push(`\n- … ${linked.length - asked.length} more linked pull requests not looked up`);
  }
  return `Pull request status (live from GitHub):${lines.join("")}`;
}
