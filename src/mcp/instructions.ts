/** Claude Code shows a server's instructions up to 2 KB and cuts the rest. */
export const MAX_INSTRUCTIONS_BYTES = 2048;

const ABOUT =
  "twig-mcp answers questions about the git repository you work in: its twig branch stacks " +
  "(.twig/state.json), their GitHub pull requests and Jira issues. Every tool is read-only, so calling " +
  "one is always safe; repository-scoped tools take an optional `repo` for another repository.";

/** Which question each tool answers, most asked first; only enabled tools are named. */
const QUESTIONS: ReadonlyArray<readonly [tool: string, question: string]> = [
  ["get_branch_context", "What am I working on? Start here: the branch, its stack, PR and Jira issue in one call"],
  ["get_stack_status", "What is blocked in my stack, what do I run next, will it conflict, what do I say at standup?"],
  ["get_ci_log", "Why is CI failing? Is it mine: flaky, failing on the base too, or new?"],
  ["get_pr_status", "Can this PR merge? Its checks and reviews"],
  ["get_review_threads", "What did reviewers ask, and where? The unresolved review threads"],
  ["get_branch_tree", "How do all stacked branches relate?"],
  ["get_branch_stack", "What is this branch stacked on?"],
  ["list_branches", "Which branches does twig track?"],
  ["get_current_branch", "Which branch is checked out?"],
  ["get_branch_metadata", "What did twig record for a branch (parent, PR, Jira)?"],
  ["get_pull_request", "What does a PR say and change?"],
  ["list_pull_requests", "Which PRs are open in this repository?"],
  ["get_jira_issue", "What does a Jira issue ask for?"],
  ["list_jira_issues", "Which Jira issues are in a project?"],
  ["list_repositories", "Which repositories does twig know?"],
  ["get_worktrees", "Which worktrees does this repository have?"],
];

/** The server's instructions for `enabled` tools: what twig-mcp is, and which tool answers which question. */
export function serverInstructions(enabled: readonly string[]): string {
  const names = new Set(enabled);
  const lines = QUESTIONS.filter(([tool]) => names.has(tool)).map(([tool, question]) => `- ${question} -> ${tool}`);
  return lines.length === 0 ? ABOUT : `${ABOUT}\nWhich tool answers which question:\n${lines.join("\n")}`;
}
