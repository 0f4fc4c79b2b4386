/**
 * What "the state of my stack" costs: `bun run bench:stack-status [--latency=50]`.
 *
 * Builds the binary, serves the six-branch stack of test/support/stack-fixture.ts from a fake
 * GitHub and a fake Jira Cloud that each wait `latency` ms per request, and asks it twice: once
 * with get_stack_status, once with the older tools a model would call for the same answer
 * (get_branch_tree, get_pr_status per PR, list_pull_requests for the branch twig does not link,
 * get_jira_issue per issue). For each: tool calls, model turns (calls that depend on an earlier
 * answer need another turn), HTTP requests, round trips (a request that starts after another was
 * answered is one round later), wall time, and the tokens of the replies the model reads, counted
 * with `@anthropic-ai/tokenizer`. Writes the table between markers in docs/performance.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "@anthropic-ai/tokenizer";
import { roundTrips } from "../test/support/stack-fixture.ts";
import { buildExecutable } from "./lib/build.ts";
import { writePerformanceSection } from "./lib/performance-page.ts";
import { makeStackWorld } from "./lib/stack-world.ts";
import { StdioServer } from "./lib/stdio-rpc.ts";
import { formatMarkdownTable, formatMs } from "./lib/table.ts";

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const LATENCY_MS = arg("latency", 50);

interface Cost {
  calls: number;
  turns: number;
  githubRequests: number;
  githubRoundTrips: number;
  jiraRequests: number;
  ms: number;
  tokens: number;
}

const work = mkdtempSync(join(tmpdir(), "twig-mcp-bench-stack-status-"));
const world = await makeStackWorld(LATENCY_MS);
try {
  process.stderr.write("building the binary…\n");
  const binary = await buildExecutable(join(work, "twig-mcp"));
  const server = StdioServer.spawn("twig-mcp", [binary.path], {
    cwd: world.repo,
    env: world.home.env,
    keepStderr: true,
  });
  try {
    await server.initialize();
    // Loads Octokit and learns the Jira deployment once, as any session's first call does.
    await server.callTool("get_stack_status");

    /** One tool call, its requests and their round trips counted on the fakes. */
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      world.github.reset();
      world.jira.requests.length = 0;
      const sent = performance.now();
      const reply = await server.callTool(name, args);
      const content = (reply.message.result?.content as Array<{ text?: string }> | undefined) ?? [];
      const text = content[0]?.text ?? "";
      return {
        data: (JSON.parse(text) as { data?: Record<string, unknown> }).data ?? {},
        cost: {
          calls: 1,
          turns: 1,
          githubRequests: world.github.requests.length,
          githubRoundTrips: roundTrips(world.github.requests),
          jiraRequests: world.jira.requests.length,
          ms: reply.at - sent,
          tokens: countTokens(text),
        },
      };
    };
    const add = (a: Cost, b: Cost): Cost => ({
      calls: a.calls + b.calls,
      turns: a.turns,
      githubRequests: a.githubRequests + b.githubRequests,
      githubRoundTrips: a.githubRoundTrips + b.githubRoundTrips,
      jiraRequests: a.jiraRequests + b.jiraRequests,
      ms: a.ms + b.ms,
      tokens: a.tokens + b.tokens,
    });

    const one = (await call("get_stack_status")).cost;

    // The same answer from the older tools: the tree first (to know the stack), then every PR and
    // issue, then the PR found by branch.
    const tree = await call("get_branch_tree", { branch: "feature/auth" });
    let older = tree.cost;
    const nodes: Array<{ branch: string; pr_number?: number; jira_issue?: string }> = [];
    const walk = (node: { branch: string; pr_number?: number; jira_issue?: string; children: unknown[] }) => {
      nodes.push(node);
      for (const child of node.children) walk(child as typeof node);
    };
    for (const root of tree.data.branches as Array<Parameters<typeof walk>[0]>) walk(root);
    older = { ...older, turns: 2 };
    const found: number[] = [];
    for (const node of nodes) {
      if (node.pr_number !== undefined)
        older = add(older, (await call("get_pr_status", { pr_number: node.pr_number })).cost);
      else {
        const listed = await call("list_pull_requests", { head: node.branch, state: "all" });
        older = add(older, listed.cost);
        const first = (listed.data.pull_requests as Array<{ number: number }>)[0];
        if (first !== undefined) found.push(first.number);
      }
      if (node.jira_issue !== undefined)
        older = add(older, (await call("get_jira_issue", { issue_key: node.jira_issue })).cost);
    }
    if (found.length > 0) older = { ...older, turns: 3 };
    for (const number of found) older = add(older, (await call("get_pr_status", { pr_number: number })).cost);

    const row = (label: string, c: Cost) => [
      label,
      String(c.calls),
      String(c.turns),
      String(c.githubRequests),
      String(c.githubRoundTrips),
      String(c.jiraRequests),
      formatMs(c.ms),
      c.tokens.toLocaleString("en-US"),
    ];
    const table = formatMarkdownTable(
      [
        "answer",
        "tool calls",
        "model turns",
        "GitHub requests",
        "GitHub round trips",
        "Jira requests",
        "ms",
        "reply tokens",
      ],
      [row("get_stack_status", one), row("older tools", older)],
      ["left", "right", "right", "right", "right", "right", "right", "right"],
    );
    const section = [
      "## The state of a stack: get_stack_status against the older tools",
      "",
      `Written by \`bun run bench:stack-status\` on ${new Date().toISOString().slice(0, 10)}: the six-branch stack of ` +
        `test/support/stack-fixture.ts (two failing PRs, a draft, a merged parent, a PR twig does not link), each fake ` +
        `server waiting ${LATENCY_MS} ms per request, a warm session. Round trips of the older tools are summed over ` +
        "their calls, made one after another; ms is the servers' time, not the model's turns.",
      "",
      table,
    ].join("\n");
    process.stdout.write(`${section}\n`);
    writePerformanceSection("stack-status", section);
  } finally {
    await server.close();
  }
} finally {
  await world.cleanup();
  rmSync(work, { recursive: true, force: true });
}
