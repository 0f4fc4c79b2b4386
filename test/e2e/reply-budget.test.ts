import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GeneratedRepo, generateRepo, planBranches } from "../../bench/lib/repo-gen.ts";
import { compareBytewise } from "../../src/git/bytewise.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer, type ToolCall } from "../support/mcp-harness.ts";
import { countTokens } from "../support/tokens.ts";

/** The default budget, counted by the real tokenizer. */
const BUDGET_TOKENS = 20_000;

/** A branch two levels down a chain under `main` with no second parent on the way: a checked-out branch with a subtree. */
function focusBranch(count: number): { focus: string; path: string[] } {
  const plans = planBranches(count);
  const chains = Math.floor((plans.length - 4) / 8);
  for (let chain = Math.floor(chains / 2); chain < chains; chain++) {
    const at = (depth: number) => plans[4 + chain * 8 + depth];
    const path = [0, 1, 2].map(at);
    const child = at(3);
    if (
      path.every((plan) => plan?.tracked && plan.parents.length === 1) &&
      path[0]?.parents[0] === "main" &&
      child?.tracked
    ) {
      return { focus: path[2]?.name as string, path: ["main", ...path.map((plan) => plan?.name as string)] };
    }
  }
  throw new Error("no chain to check out");
}

function withinBudget(call: ToolCall): void {
  expect(call.isError).toBe(false);
  expect(countTokens(call.text)).toBeLessThanOrEqual(BUDGET_TOKENS);
  expect(countTokens(JSON.stringify(call.structured))).toBeLessThanOrEqual(BUDGET_TOKENS);
}

/** Follows next_cursor from the first page; the branch names in the order they came. */
async function everyPage(server: RunningServer, args: Record<string, unknown> = {}): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const reply = await server.call("list_branches", cursor === undefined ? args : { ...args, cursor });
    withinBudget(reply);
    const data = reply.structured as { branches: Array<{ branch: string }>; next_cursor?: string };
    expect(data.branches.length).toBeGreaterThan(0);
    seen.push(...data.branches.map((record) => record.branch));
    cursor = data.next_cursor;
    if (cursor === undefined) return seen;
  }
  throw new Error("paging did not end");
}

// At 10,000 branches each test makes several whole-repository calls: on a loaded 2-core machine that
// takes longer than the default 5 s, so every test here gets a minute.
setDefaultTimeout(60_000);

for (const count of [1_000, 10_000]) {
  // The tests only read: they share the server and run side by side, the server answering one while
  // this process counts the tokens of another's replies.
  describe.concurrent(`reply budget at ${count.toLocaleString("en-US")} branches`, () => {
    let home: HermeticHome;
    let repo: GeneratedRepo;
    let server: RunningServer;
    const { focus, path } = focusBranch(count);

    beforeAll(async () => {
      home = makeHermeticHome();
      repo = generateRepo({ branches: count });
      writeFileSync(join(repo.root, ".git", "HEAD"), `ref: refs/heads/${focus}\n`);
      server = await startServer({ cwd: repo.root, env: home.env });
      // Writing 10,000 refs and starting a server take longer than a hook's default 5 s on a busy machine.
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      repo?.cleanup();
      home?.cleanup();
    });

    test("every local tool's default reply fits the budget", async () => {
      const calls: Array<[string, Record<string, unknown>]> = [
        ["get_current_branch", {}],
        ["get_branch_metadata", { branch: repo.sample }],
        ["get_branch_stack", {}],
        ["get_branch_tree", {}],
        ["list_branches", {}],
        ["list_repositories", {}],
        ["get_worktrees", {}],
      ];
      for (const [name, args] of calls) withinBudget(await server.call(name, args));
    });

    test("following next_cursor visits every tracked branch once, in byte-wise order", async () => {
      const seen = await everyPage(server);
      const expected = [...repo.tracked].sort(compareBytewise);
      expect(seen).toEqual(expected);
    });

    test("a query pages through only the matching branches, name or Jira key", async () => {
      const seen = await everyPage(server, { query: "proj-1" });
      expect(seen.length).toBeGreaterThan(0);
      const first = await server.call("list_branches", { query: "proj-1", limit: 5 });
      const records = (first.structured as { branches: Array<{ branch: string; jira_issue?: string }> }).branches;
      for (const record of records) expect(record.jira_issue?.toLowerCase() ?? record.branch).toContain("proj-1");
    });

    test("a cut tree keeps the path to the checked-out branch and its whole subtree", async () => {
      const reply = await server.call("get_branch_tree");
      withinBudget(reply);
      const tree = reply.structured as {
        tree_text: string;
        branches: unknown[];
        truncated?: true;
        omitted?: { branches?: number; tree_lines?: number };
        hint?: string;
      };
      expect(tree.truncated).toBe(true);
      // The nodes go before any line of text does.
      expect(tree.branches).toEqual([]);
      const lines = tree.tree_text.trimEnd().split("\n");
      const names = lines.map((line) => line.replace(/^[│├└─\s]+/u, "").split(" ")[0]);
      let from = 0;
      for (const branch of path) {
        const at = names.indexOf(branch, from);
        expect(at).toBeGreaterThanOrEqual(from);
        from = at;
      }
      const subtree = await server.call("get_branch_tree", { branch: focus });
      const below = (subtree.structured as { tree_text: string }).tree_text
        .trimEnd()
        .split("\n")
        .map((line) => line.replace(/^[│├└─\s]+/u, "").split(" ")[0]);
      expect(below.length).toBeGreaterThan(1);
      for (const branch of below) expect(names).toContain(branch);
      expect(tree.omitted?.branches).toBeGreaterThan(count);
      // Even at 1,000 branches the text alone is over 20,000 tokens: lines are left out too.
      const omittedLines = tree.omitted?.tree_lines ?? 0;
      expect(omittedLines).toBeGreaterThan(0);
      expect(lines.at(-1)).toBe(
        `… ${omittedLines.toLocaleString("en-US")} more branches (pass branch=<root> or depth)`,
      );
    });

    test("depth narrows the tree", async () => {
      const reply = await server.call("get_branch_tree", { branch: "main", depth: 1 });
      withinBudget(reply);
      const text = (reply.structured as { tree_text: string }).tree_text;
      // Under main hang thousands of chains at 10,000 branches: the page may still be cut, on its closing line.
      const lines = text.trimEnd().split("\n");
      if (lines.at(-1)?.startsWith("… ")) lines.pop();
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines.slice(1)) expect(line).toMatch(/^[├└]── /);
    });

    test("a forged, edited or foreign cursor is invalid_params", async () => {
      const first = await server.call("list_branches", { limit: 3 });
      const cursor = (first.structured as { next_cursor: string }).next_cursor;
      const edited = `${cursor.slice(0, 5)}${cursor[5] === "A" ? "B" : "A"}${cursor.slice(6)}`;
      const forged = Buffer.from(JSON.stringify([1, "x", "zzz", null])).toString("base64url");
      for (const bad of [edited, `${forged}.0123456789abcdef`, "nonsense", cursor.slice(0, -1)]) {
        const reply = await server.call("list_branches", { cursor: bad });
        expect(reply.isError).toBe(true);
        expect(reply.envelope.error?.code).toBe("invalid_params");
        expect(reply.envelope.error?.hint).toContain("without cursor");
      }
      const otherQuery = await server.call("list_branches", { cursor, query: "auth" });
      expect(otherQuery.envelope.error?.code).toBe("invalid_params");
    });
  });
}

describe("raising or lifting the budget", () => {
  let home: HermeticHome;
  let repo: GeneratedRepo;

  beforeAll(() => {
    repo = generateRepo({ branches: 1_000 });
    home = makeHermeticHome({ TWIG_MCP_MAX_REPLY_TOKENS: "5000" });
  }, 60_000);

  afterAll(() => {
    repo?.cleanup();
    home?.cleanup();
  });

  test("TWIG_MCP_MAX_REPLY_TOKENS sets it, and --max-reply-tokens 0 wins with the whole reply", async () => {
    const small = await startServer({ cwd: repo.root, env: home.env });
    try {
      const page = await small.call("list_branches");
      expect(countTokens(page.text)).toBeLessThanOrEqual(5_000);
      expect((page.structured as { truncated?: true }).truncated).toBe(true);
    } finally {
      await small.close();
    }
    const unlimited = await startServer({ cwd: repo.root, env: home.env, args: ["--max-reply-tokens", "0"] });
    try {
      const whole = await unlimited.call("list_branches");
      const data = whole.structured as { branches: unknown[]; truncated?: true; next_cursor?: string };
      expect(data.branches).toHaveLength(repo.tracked.length);
      expect(data.truncated).toBeUndefined();
      expect(data.next_cursor).toBeUndefined();
      expect(countTokens(whole.text)).toBeGreaterThan(BUDGET_TOKENS);
      const tree = await unlimited.call("get_branch_tree");
      expect((tree.structured as { truncated?: true }).truncated).toBeUndefined();
    } finally {
      await unlimited.close();
    }
  });
});
