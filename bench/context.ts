/**
 * get_branch_context against the test suite's fake GitHub and Jira on 127.0.0.1, each answering
 * after a fixed latency, so wall time reads in round trips. Compared with the two calls it
 * replaces (get_pr_status and get_jira_issue, each alone): asking GitHub and Jira at the same
 * time, it should cost no more than the slower of the two, plus 10 %. Then the reply's size in
 * tokens for a PR with 5 checks and one with 400 (target: at most 2,000 tokens).
 *
 *   bun run bench:context [--latency MS] [--sessions N] [--repeats N] [--json]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { countTokens } from "@anthropic-ai/tokenizer";
import { checkRunPayload, commitStatusPayload, FakeGitHub, reviewPayload } from "../test/support/fake-github.ts";
import { FakeJira, USERS } from "../test/support/fake-jira.ts";
import { buildExecutable } from "./lib/build.ts";
import { median } from "./lib/stats.ts";
import { StdioServer } from "./lib/stdio-rpc.ts";
import { formatMs, formatTable } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "50" },
    sessions: { type: "string", default: "5" },
    repeats: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
const LATENCY_MS = Number(values.latency);
const SESSIONS = Number(values.sessions);
const REPEATS = Number(values.repeats);

const TOKEN = "ghp_bench_context_token_0123456789abcdef";
const JIRA_EMAIL = "alice@example.com";
const JIRA_TOKEN = "atatt-bench-context-token";
const SMALL_SHA = "d".repeat(40);
const BIG_SHA = "e".repeat(40);
const TOKEN_BUDGET = 2000;

interface Figures {
  label: string;
  firstMs: number;
  repeatMs: number;
  firstRequests: number;
  repeatRequests: number;
}

const work = mkdtempSync(join(tmpdir(), "twig-mcp-bench-context-"));
const github = await FakeGitHub.start({ latencyMs: LATENCY_MS, token: TOKEN });
const jira = FakeJira.start({ deployment: "cloud", latencyMs: LATENCY_MS, me: USERS.alice });
try {
  const binary = (await buildExecutable(join(work, "twig-mcp"))).path;
  const home = join(work, "home");
  mkdirSync(home);
  const baseEnv: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  const repo = makeRepo(join(work, "shop"), baseEnv);
  seedFakes();
  const env = {
    ...baseEnv,
    GITHUB_API_URL: github.url,
    GH_TOKEN: TOKEN,
    JIRA_HOST: jira.url,
    JIRA_EMAIL,
    JIRA_API_TOKEN: JIRA_TOKEN,
  };
  const requests = () => github.requests.length + jira.requests.length;
  const measure = (label: string, tool: string, args: Record<string, unknown>) =>
    measureCall({ binary, cwd: repo, env, label, tool, args, requests });

  const pr = await measure("get_pr_status (pr_number)", "get_pr_status", { pr_number: 43 });
  const issue = await measure("get_jira_issue (issue_key)", "get_jira_issue", { issue_key: "SHOP-1" });
  const context = await measure("get_branch_context (current branch)", "get_branch_context", {});
  const rows = [pr, issue, context];

  const sizes = await replySizes(binary, repo, env);
  const slower = { first: Math.max(pr.firstMs, issue.firstMs), repeat: Math.max(pr.repeatMs, issue.repeatMs) };
  const targets = [
    { name: "first call ≤ slower alone + 10 %", value: context.firstMs, line: slower.first * 1.1 },
    { name: "repeated call ≤ slower alone + 10 %", value: context.repeatMs, line: slower.repeat * 1.1 },
    ...sizes
      .slice(0, 2)
      .map((s) => ({ name: `${s.label}: ≤ ${TOKEN_BUDGET} tokens`, value: s.tokens, line: TOKEN_BUDGET })),
  ];

  if (values.json) {
    console.log(JSON.stringify({ latencyMs: LATENCY_MS, calls: rows, sizes, targets }, null, 2));
  } else {
    const rt = (ms: number) => `${formatMs(ms)} (${(ms / LATENCY_MS).toFixed(1)} RT)`;
    console.log(`Latency ${LATENCY_MS} ms per request; first call: median of ${SESSIONS} fresh sessions.`);
    console.log(
      formatTable(
        ["call", "first", "requests", "repeated", "requests"],
        rows.map((r) => [r.label, rt(r.firstMs), String(r.firstRequests), rt(r.repeatMs), String(r.repeatRequests)]),
      ),
    );
    console.log();
    console.log("Reply size (text content; tokens by @anthropic-ai/tokenizer):");
    console.log(
      formatTable(
        ["reply", "bytes", "tokens"],
        sizes.map((s) => [s.label, String(s.bytes), String(s.tokens)]),
      ),
    );
    console.log();
    for (const t of targets) {
      const met = t.value <= t.line;
      const shown = (n: number) => (t.name.includes("tokens") ? String(Math.round(n)) : formatMs(n));
      console.log(`${met ? "met   " : "MISSED"} ${t.name}: ${shown(t.value)} (line ${shown(t.line)})`);
    }
  }
} finally {
  await github.stop();
  jira.stop();
  rmSync(work, { recursive: true, force: true });
}

/** PR 43 (5 checks) on the checked-out branch, linked to SHOP-1; PR 44 with 400 checks on another. */
function seedFakes(): void {
  const data = github.repo("octo", "shop");
  github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth", headSha: SMALL_SHA, title: "Auth" });
  github.addPull({ owner: "octo", repo: "shop", number: 44, head: "feature/big", headSha: BIG_SHA, title: "Big" });
  const reviews = [
    reviewPayload({ id: 1, login: "alice", state: "APPROVED" }),
    reviewPayload({ id: 2, login: "bob", state: "COMMENTED" }),
  ];
  data.reviews.set(43, reviews);
  data.reviews.set(44, reviews);
  data.checkRuns.set(SMALL_SHA, [
    checkRunPayload({ id: 1, name: "build" }),
    checkRunPayload({ id: 2, name: "test" }),
    checkRunPayload({ id: 3, name: "lint", conclusion: "failure" }),
    checkRunPayload({ id: 4, name: "e2e", status: "in_progress" }),
  ]);
  data.statuses.set(SMALL_SHA, [commitStatusPayload({ context: "ci/legacy", state: "success" })]);
  data.checkRuns.set(
    BIG_SHA,
    Array.from({ length: 400 }, (_, i) =>
      checkRunPayload({
        id: 100 + i,
        name: `matrix / job-${i} (ubuntu-latest, node-${i % 7})`,
        ...(i < 40 ? { conclusion: "failure" } : i < 60 ? { status: "in_progress" } : {}),
      }),
    ),
  );
  jira.addIssues({
    key: "SHOP-1",
    summary: "Checkout fails for guests",
    wiki: null,
    adf: {
      type: "doc",
      version: 1,
      content: [
        {
          type: "paragraph",
          content: [{ type: "text", text: "Guests who reach the payment step see an error. ".repeat(40) }],
        },
      ],
    },
    status: "In Progress",
    assignee: USERS.alice,
    issueType: "Bug",
  });
}

function makeRepo(root: string, env: Record<string, string>): string {
  mkdirSync(root);
  const git = (...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: root, env });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  };
  git("init", "-q", "-b", "main");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "--allow-empty", "-m", "init");
  git("branch", "feature/big");
  git("checkout", "-q", "-b", "feature/auth");
  git("remote", "add", "origin", "https://github.com/octo/shop.git");
  mkdirSync(join(root, ".twig"));
  const branch = (name: string, jiraIssue: string | null, pr: number) => ({
    branch: name,
    jira_issue: jiraIssue,
    github_pr: pr,
    created_at: "2025-06-01T10:00:00+00:00",
  });
  writeFileSync(
    join(root, ".twig", "state.json"),
    JSON.stringify({
      version: 1,
      branches: {
        "feature/auth": branch("feature/auth", "SHOP-1", 43),
        "feature/big": branch("feature/big", null, 44),
      },
      dependencies: [
        { id: "1", child: "feature/auth", parent: "main" },
        { id: "2", child: "feature/big", parent: "feature/auth" },
      ],
      root_branches: [{ id: "r", branch: "main", is_default: true }],
      worktrees: [],
    }),
  );
  return root;
}

/** First call (median over fresh sessions, after initialize and tools/list), then repeated calls. */
async function measureCall(options: {
  binary: string;
  cwd: string;
  env: Record<string, string>;
  label: string;
  tool: string;
  args: Record<string, unknown>;
  requests: () => number;
}): Promise<Figures> {
  const timed = async (server: StdioServer) => {
    const before = options.requests();
    const started = performance.now();
    const reply = await server.callTool(options.tool, options.args);
    if (reply.message.error || (reply.message.result as { isError?: boolean }).isError) {
      throw new Error(`${options.tool} failed: ${JSON.stringify(reply.message)}`);
    }
    return { ms: reply.at - started, requests: options.requests() - before };
  };
  const firsts: Array<{ ms: number; requests: number }> = [];
  let server: StdioServer | null = null;
  try {
    for (let i = 0; i < SESSIONS; i++) {
      await server?.close();
      server = StdioServer.spawn("twig-mcp", [options.binary], {
        cwd: options.cwd,
        env: options.env,
        keepStderr: true,
      });
      await server.initialize();
      await server.request("tools/list");
      firsts.push(await timed(server));
    }
    const repeats: Array<{ ms: number; requests: number }> = [];
    for (let i = 0; i < REPEATS; i++) repeats.push(await timed(server as StdioServer));
    return {
      label: options.label,
      firstMs: median(firsts.map((f) => f.ms)),
      firstRequests: firsts[0]?.requests ?? 0,
      repeatMs: median(repeats.map((r) => r.ms)),
      repeatRequests: repeats.at(-1)?.requests ?? 0,
    };
  } finally {
    await server?.close();
  }
}

/** The text content a model reads, for the 5-check and the 400-check PR, beside get_pr_status's. */
async function replySizes(binary: string, cwd: string, env: Record<string, string>) {
  const server = StdioServer.spawn("twig-mcp", [binary], { cwd, env, keepStderr: true });
  try {
    await server.initialize();
    const size = async (label: string, tool: string, args: Record<string, unknown>) => {
      const reply = await server.callTool(tool, args);
      const text = (reply.message.result as { content: Array<{ text: string }> }).content[0]?.text ?? "";
      return { label, bytes: Buffer.byteLength(text), tokens: countTokens(text) };
    };
    return [
      await size("get_branch_context, PR with 5 checks", "get_branch_context", {}),
      await size("get_branch_context, PR with 400 checks", "get_branch_context", { branch: "feature/big" }),
      await size("get_pr_status, PR with 400 checks (for scale)", "get_pr_status", { pr_number: 44 }),
    ];
  } finally {
    await server.close();
  }
}
