/**
 * Reply sizes: `bun run bench:replies [--quick]`.
 *
 * Builds the binary with build.ts's flags, generates repositories of 20, 100, 1,000 and 10,000
 * branches (20 is repo-gen's smallest shape), and for every local tool records the size of its
 * reply's text content in bytes and in tokens, under the default reply budget and with the budget
 * lifted (`--max-reply-tokens 0`, the replies before there was a budget). Tokens are counted with
 * `@anthropic-ai/tokenizer` (Anthropic's published tokenizer for older Claude models: an estimate
 * for current ones, which is what the budget's token estimate is calibrated against). Then the p50
 * of a default `get_branch_tree` at 10,000 branches. Writes docs/replies.md and the same section
 * between markers in docs/performance.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { countTokens } from "@anthropic-ai/tokenizer";
import { RACY_WINDOW_MS } from "../src/fs/cached-file.ts";
import { makeHermeticHome } from "../test/support/hermetic-env.ts";
import { buildExecutable } from "./lib/build.ts";
import { writePerformanceSection } from "./lib/performance-page.ts";
import { type GeneratedRepo, generateRepo } from "./lib/repo-gen.ts";
import { makeStackWorld } from "./lib/stack-world.ts";
import { summarize } from "./lib/stats.ts";
import { StdioServer } from "./lib/stdio-rpc.ts";
import { formatBytes, formatMarkdownTable, formatMs } from "./lib/table.ts";

const SIZES = [20, 100, 1_000, 10_000] as const;
const TREE_TARGET_MS = 40;
/**
 * The six-branch stack's reply now carries commands that run as given (old bases by commit id, leased pushes), a
 * restack forecast per rewrite and whose each failure is: test/tools/stack-status.test.ts holds it under this too.
 */
const STACK_TARGET_TOKENS = 2_000;
/** Past this size a reply's tokens are estimated from its bytes at the ratio measured below it (the tokenizer is slow on megabytes). */
const TOKENIZE_UP_TO = 300_000;

const { values: flags } = parseArgs({ options: { quick: { type: "boolean", default: false } } });
const treeCalls = flags.quick ? 10 : 40;

const here = import.meta.dir;
const work = mkdtempSync(join(tmpdir(), "twig-mcp-replies-"));
const home = makeHermeticHome();

function localCalls(repo: GeneratedRepo): Array<[string, Record<string, unknown>]> {
  return [
    ["get_current_branch", {}],
    ["get_branch_metadata", { branch: repo.sample }],
    ["get_branch_stack", {}],
    ["get_branch_tree", {}],
    ["list_branches", {}],
    ["list_repositories", {}],
    ["get_worktrees", {}],
  ];
}

function replyText(result: Record<string, unknown> | undefined): string {
  const content = (result?.content as Array<{ text?: string }> | undefined) ?? [];
  return content[0]?.text ?? "";
}

interface Row {
  size: number;
  tool: string;
  budgetBytes: number;
  budgetTokens: number;
  truncated: boolean;
  fullBytes: number;
  fullTokens: number | null;
}

try {
  process.stderr.write("building the binary…\n");
  const binary = await buildExecutable(join(work, "twig-mcp"));
  const rows: Row[] = [];
  let treeP50 = Number.NaN;
  let treeP90 = Number.NaN;
  for (const size of SIZES) {
    process.stderr.write(`${size} branches…\n`);
    const repo = generateRepo({ branches: size, parentDir: work });
    const generatedAt = Date.now();
    const spawn = (args: string[]) =>
      StdioServer.spawn(`twig-mcp ${args.join(" ")}`.trim(), [binary.path, ...args], {
        cwd: repo.root,
        env: home.env,
        keepStderr: true,
      });
    const budgeted = spawn([]);
    const unlimited = spawn(["--max-reply-tokens", "0"]);
    try {
      await budgeted.initialize();
      await unlimited.initialize();
      for (const [tool, args] of localCalls(repo)) {
        const cut = replyText((await budgeted.callTool(tool, args)).message.result);
        const full = replyText((await unlimited.callTool(tool, args)).message.result);
        const fullBytes = Buffer.byteLength(full);
        rows.push({
          size,
          tool,
          budgetBytes: Buffer.byteLength(cut),
          budgetTokens: countTokens(cut),
          truncated: (JSON.parse(cut) as { data?: { truncated?: true } }).data?.truncated === true,
          fullBytes,
          fullTokens: fullBytes <= TOKENIZE_UP_TO ? countTokens(full) : null,
        });
      }
      if (size === 10_000) {
        // A user's packed-refs and state file are older than git's racy-clean window, so the file
        // cache keeps them parsed; a repository written a moment ago is parsed again on every call.
        await Bun.sleep(Math.max(0, generatedAt + RACY_WINDOW_MS + 100 - Date.now()));
        for (let i = 0; i < 3; i++) await budgeted.callTool("get_branch_tree");
        const samples: number[] = [];
        for (let i = 0; i < treeCalls; i++) {
          const sent = performance.now();
          const reply = await budgeted.callTool("get_branch_tree");
          samples.push(reply.at - sent);
        }
        const summary = summarize(samples);
        treeP50 = summary.p50;
        treeP90 = summary.p90;
      }
    } finally {
      await budgeted.close();
      await unlimited.close();
      repo.cleanup();
    }
  }

  // The stack answer a model asks for most: six branches, two failing PRs, GitHub and Jira live.
  process.stderr.write("get_stack_status on the six-branch stack…\n");
  const world = await makeStackWorld(0);
  let stackTokens = Number.NaN;
  try {
    const server = StdioServer.spawn("twig-mcp", [binary.path], {
      cwd: world.repo,
      env: world.home.env,
      keepStderr: true,
    });
    try {
      await server.initialize();
      stackTokens = countTokens(replyText((await server.callTool("get_stack_status")).message.result));
    } finally {
      await server.close();
    }
  } finally {
    await world.cleanup();
  }

  // Tokens of a reply too large to tokenize: at the bytes-per-token of the same tool's largest tokenized reply.
  const estimate = (row: Row): string => {
    if (row.fullTokens !== null) return row.fullTokens.toLocaleString("en-US");
    const known = rows.filter((r) => r.tool === row.tool && r.fullTokens !== null).at(-1);
    if (!known?.fullTokens) return "–";
    return `≈${Math.round((row.fullBytes * known.fullTokens) / known.fullBytes).toLocaleString("en-US")}`;
  };
  const table = formatMarkdownTable(
    ["branches", "tool", "default budget: bytes", "tokens", "cut", "unlimited: bytes", "tokens"],
    rows.map((row) => [
      row.size.toLocaleString("en-US"),
      row.tool,
      formatBytes(row.budgetBytes),
      row.budgetTokens.toLocaleString("en-US"),
      row.truncated ? "yes" : "",
      formatBytes(row.fullBytes),
      estimate(row),
    ]),
    ["right", "left", "right", "right", "left", "right", "right"],
  );
  const worst = Math.max(...rows.map((row) => row.budgetTokens));
  const pass = treeP50 <= TREE_TARGET_MS;
  const section = [
    "## Reply sizes",
    "",
    `Written by \`bun run bench:replies\`${flags.quick ? " --quick" : ""} on ${new Date().toISOString().slice(0, 10)}. ` +
      "Bytes are the reply's text content (the JSON envelope); tokens are counted with `@anthropic-ai/tokenizer` " +
      `(≈ marks an estimate from bytes at the ratio of the same tool's largest counted reply). The default budget is 20,000 tokens, ` +
      "estimated from above per run of characters (see tools.md); Claude Code refuses a tool result over 25,000 tokens (`MAX_MCP_OUTPUT_TOKENS`). " +
      "The smallest repository is 20 branches, repo-gen's smallest shape.",
    "",
    table,
    "",
    `Largest reply under the default budget: ${worst.toLocaleString("en-US")} tokens.`,
    "",
    `\`get_stack_status\` on the six-branch stack of test/support/stack-fixture.ts (two failing PRs with their reasons, ` +
      `GitHub and Jira answering): ${stackTokens.toLocaleString("en-US")} tokens — target < ${STACK_TARGET_TOKENS.toLocaleString("en-US")}: ` +
      `${stackTokens < STACK_TARGET_TOKENS ? "PASS" : "MISS"}.`,
    "",
    `Default \`get_branch_tree\` at 10,000 branches (cut to the budget), ${treeCalls} calls: p50 ${formatMs(treeP50)} ms, ` +
      `p90 ${formatMs(treeP90)} ms — target p50 ≤ ${TREE_TARGET_MS} ms: ${pass ? "PASS" : "MISS"}.`,
  ].join("\n");
  process.stdout.write(`${section}\n`);

  const docs = join(here, "..", "docs");
  writeFileSync(
    join(docs, "replies.md"),
    `# Reply sizes\n\nSee also [performance.md](performance.md).\n\n${section.replace(/^## Reply sizes\n\n/, "")}\n`,
  );
  writePerformanceSection("replies", section);
} finally {
  rmSync(work, { recursive: true, force: true });
  home.cleanup();
}
