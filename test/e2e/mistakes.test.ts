/**
 * Mistakes the model makes, and failures it cannot see on stderr, come back as answers that name
 * them and say what to do (issue 16, items 5 and 6), through the built binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { gitOrThrow, makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";

let home: HermeticHome;
let root: string;
let repo: string;
let outside: string;
let server: RunningServer;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, home.home, ...args);
}

function promptText(result: { messages: Array<{ content: { type: string; text?: string } }> }): string {
  expect(result.messages).toHaveLength(1);
  return result.messages[0]?.content.text ?? "";
}

function writeRegistry(entries: Array<{ name: string; path: string }>): void {
  writeFileSync(join(home.twigDataDir, "registry.json"), JSON.stringify(entries));
}

beforeAll(async () => {
  home = makeHermeticHome();
  root = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-mistakes-")));
  repo = makeExampleRepo(join(root, "shop"), home.home, { checkout: "feature/auth-ui" });
  outside = join(root, "not-a-repo");
  mkdirSync(outside);
  mkdirSync(home.twigDataDir, { recursive: true });
  server = await startServer({ cwd: repo, env: home.env });
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

describe("a misspelled argument", () => {
  test("is invalid_params naming it with a did-you-mean, not an answer about the current branch", async () => {
    const result = await server.call("get_branch_stack", { brnch: "feature/auth" });
    expect(result.isError).toBe(true);
    expect(result.structured).toBeUndefined();
    expect(result.envelope.error).toEqual({
      code: "invalid_params",
      message: "Invalid arguments for get_branch_stack: unknown argument 'brnch'; did you mean 'branch'?",
      hint: "get_branch_stack takes: branch, repo.",
    });
  });

  test("the injected repo argument is known to repository tools; a tool without arguments says so", async () => {
    const withRepo = await server.call("get_branch_stack", { branch: "feature/auth", repo });
    expect(withRepo.isError).toBe(false);
    const registered = await server.call("list_repositories", { repo: "shop" });
    expect(registered.envelope.error).toEqual({
      code: "invalid_params",
      message: "Invalid arguments for list_repositories: unknown argument 'repo'",
      hint: "list_repositories takes no arguments.",
    });
  });

  test("several unknown names are listed (a few, then a count), each in a short printable form", async () => {
    const long = `x\u0000\u001b[31m\u202e${"y".repeat(5000)}`;
    const result = await server.call("get_current_branch", { [long]: 1, b: 2, c: 3, d: 4 });
    const message = result.envelope.error?.message ?? "";
    expect(result.envelope.error?.code).toBe("invalid_params");
    expect(message).toContain("unknown arguments 'x??[31m?yyyy");
    expect(message).toEndWith("…', 'b', 'c' and 1 more");
    expect(message.length).toBeLessThan(200);
    expect(message).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  test("null for an unknown name is as harmless as null for a known one (upstream: null means absent)", async () => {
    const result = await server.call("get_branch_metadata", { branch: "feature/auth", brnch: null });
    expect(result.isError).toBe(false);
  });
});

describe("a misspelled enum value", () => {
  test("lists the allowed values with a did-you-mean, before any network call", async () => {
    const result = await server.call("list_pull_requests", { state: "opne" });
    expect(result.envelope.error).toEqual({
      code: "invalid_params",
      message:
        "Invalid arguments for list_pull_requests: state: 'opne' is not one of 'open', 'closed', 'all'; did you mean 'open'?",
      hint: "list_pull_requests takes: state, limit, head, base, owner, repo.",
    });
  });

  test("a huge or hostile received value is quoted short and printable", async () => {
    const result = await server.call("list_pull_requests", { state: `\u001b]0;pwned\u0007${"z".repeat(100_000)}` });
    const message = result.envelope.error?.message ?? "";
    expect(message).toStartWith("Invalid arguments for list_pull_requests: state: '?]0;pwned?zzz");
    expect(message).toContain("…' is not one of 'open', 'closed', 'all'");
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    const wrongType = await server.call("get_branch_metadata", { branch: 42 });
    expect(wrongType.envelope.error?.message).toBe(
      "Invalid arguments for get_branch_metadata: branch: Invalid type: Expected string but received 42",
    );
    const longType = await server.call("list_jira_issues", { project: "SHOP", limit: "9".repeat(10_000) });
    expect(longType.envelope.error?.message).toEndWith(`received '${"9".repeat(40)}…'`);
  });
});

describe("a misspelled branch", () => {
  test("gets a did-you-mean in every tool that takes a branch", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["get_branch_metadata", { branch: "feature/auht" }, "Branch 'feature/auht' not found in twig state."],
      [
        "get_branch_stack",
        { branch: "feature/auht" },
        "Branch 'feature/auht' not found in twig state or the repository.",
      ],
      ["get_branch_tree", { branch: "feature/auht" }, "Branch 'feature/auht' not found in repository."],
      [
        "get_branch_context",
        { branch: "feature/auht" },
        "Branch 'feature/auht' not found in twig state or the repository.",
      ],
    ];
    for (const [tool, args, start] of cases) {
      const result = await server.call(tool, args);
      expect(result.envelope.error?.code).toBe("not_found");
      // Every close name, closest first.
      expect(result.envelope.error?.message).toBe(`${start} Did you mean 'feature/auth' or 'feature/auth-ui'?`);
    }
    const far = await server.call("get_branch_stack", { branch: "release/2026" });
    expect(far.envelope.error?.message).toBe("Branch 'release/2026' not found in twig state or the repository");
  });
});

describe("names that come back in an answer", () => {
  test("a branch or repo argument is repeated at most 300 characters long", async () => {
    const long = `feature/${"é".repeat(5000)}`;
    const missing = await server.call("get_branch_stack", { branch: long });
    expect(missing.envelope.error?.code).toBe("not_found");
    expect(missing.envelope.error?.message).toBe(
      `Branch '${long.slice(0, 300)}…' not found in twig state or the repository`,
    );
    const repoArg = `${root}/${"r".repeat(3000)}\u0007`;
    const refused = await server.call("list_branches", { repo: repoArg });
    expect(refused.envelope.error?.code).toBe("invalid_params");
    expect(refused.envelope.error?.message).toStartWith(`repo path ${repoArg.slice(0, 300)}…`);
    expect(refused.envelope.error?.message).not.toContain("\u0007");
    const tooLong = await server.call("list_branches", { repo: "r".repeat(5000) });
    expect(tooLong.envelope.error?.message).toBe(
      "Invalid arguments for list_branches: repo: Invalid length: Expected <=4096 but received 5000",
    );
  });
});

describe("an unknown tool", () => {
  test("is JSON-RPC -32602 (as MCP says) naming the enabled tools, with a did-you-mean", async () => {
    const failure = await server.client.callTool({ name: "get_pul_request", arguments: {} }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    const error = failure as McpError;
    expect(error.code).toBe(-32602);
    const enabled = (await server.client.listTools()).tools.map((tool) => tool.name);
    expect(error.message).toContain(
      `tool not found: 'get_pul_request'; did you mean 'get_pull_request' or 'list_pull_requests'? Enabled tools: ${enabled.join(", ")}.`,
    );
    expect(error.data).toEqual({ available_tools: enabled });
  });

  test("a disabled tool is unknown too, and its name comes back short and printable", async () => {
    const local = await startServer({ cwd: repo, env: home.env, args: ["--disable", "github"] });
    try {
      const failure = (await local.client
        .callTool({ name: "get_pr_status", arguments: {} })
        .catch((e) => e)) as McpError;
      expect(failure.code).toBe(-32602);
      expect(failure.message).not.toContain("get_pull_request");
      expect(failure.message).toContain("Enabled tools: get_branch_context, get_branch_metadata,");
      const hostile = (await local.client
        .callTool({ name: `\u001b[2J${"n".repeat(10_000)}`, arguments: {} })
        .catch((e) => e)) as McpError;
      expect(hostile.message).toContain("tool not found: '?[2Jnnn");
      expect(hostile.message.length).toBeLessThan(400);
    } finally {
      await local.close();
    }
  });
});

describe("the twig registry", () => {
  test("a registered repository whose path is gone is repo_missing, with a fix in the registry", async () => {
    const gone = join(root, "moved-away");
    writeRegistry([
      { name: "shop", path: repo },
      { name: "old", path: gone },
    ]);
    const result = await server.call("list_branches", { repo: "old" });
    expect(result.envelope.error).toEqual({
      code: "repo_missing",
      message: `Registered repository 'old' at ${gone} no longer exists`,
      hint: "If it moved, register the new place with `twig git add <path>` (and remove 'old' from twig's registry); otherwise pass another name from `list_repositories`.",
    });
    const listed = await server.call("list_repositories");
    expect(listed.structured).toMatchObject({ repositories: [{ name: "shop" }, { name: "old", exists: false }] });
  });

  test("a registered path that is no longer a repository is no_repo, pointing at the registry, not at the cwd", async () => {
    writeRegistry([{ name: "plain", path: outside }]);
    const result = await server.call("get_branch_tree", { repo: "plain" });
    expect(result.envelope.error?.code).toBe("no_repo");
    expect(result.envelope.error?.message).toStartWith(`Registered repository 'plain' at ${outside}: `);
    expect(result.envelope.error?.hint).toBe(
      "Re-register the repository's checkout with `twig git add <path>`, or pass another name from `list_repositories`.",
    );
  });

  test("a registry that cannot be parsed is invalid_registry; tools without repo still read the current one", async () => {
    writeFileSync(join(home.twigDataDir, "registry.json"), "[{");
    try {
      for (const call of [server.call("list_repositories"), server.call("list_branches", { repo: "shop" })]) {
        const { envelope } = await call;
        expect(envelope.error?.code).toBe("invalid_registry");
        expect(envelope.error?.message).toStartWith("Failed to parse registry file ");
        expect(envelope.error?.hint).not.toContain("git repository");
        expect(envelope.error?.hint).toContain("Tools without `repo` still read the current repository.");
      }
      expect((await server.call("list_branches")).isError).toBe(false);
    } finally {
      rmSync(join(home.twigDataDir, "registry.json"));
    }
  });
});

describe("prompts say what the tools would say", () => {
  test("branch-context on a branch twig does not track says so, with its declared parent if any", async () => {
    const text = promptText(
      await server.client.getPrompt({ name: "branch-context", arguments: { branch: "hotfix/typo" } }),
    );
    expect(text).not.toContain("Parent branch: none");
    expect(text).toStartWith(
      "Branch: hotfix/typo\nNot tracked by twig: no Jira issue or PR is recorded for 'hotfix/typo'. Use list_branches to see tracked branches.\n\n",
    );
  });

  test("outside a repository, prompts keep the no_repo message and hint", async () => {
    const away = await startServer({ cwd: outside, env: home.env });
    try {
      const noRepo = (await away.call("get_current_branch")).envelope.error;
      expect(noRepo?.code).toBe("no_repo");
      const expected = `no_repo: ${noRepo?.message} ${noRepo?.hint}`;
      const current = promptText(await away.client.getPrompt({ name: "branch-context" }));
      expect(current).toBe(`${expected}\n\nHelp me open or choose the repository I'm working in.`);
      expect(current).not.toContain("not currently on a git branch");
      const named = promptText(
        await away.client.getPrompt({ name: "branch-context", arguments: { branch: "feature/auth" } }),
      );
      expect(named).toStartWith(`Branch: feature/auth\n${expected}\n\n`);
      const stack = promptText(await away.client.getPrompt({ name: "stack-status" }));
      expect(stack).toStartWith(`${expected}\n\n`);
      expect(stack).not.toContain("No repository or branch data available.");
    } finally {
      await away.close();
    }
  });

  test("with unreadable state, branch-context and stack-status name the problem instead of dropping it", async () => {
    const broken = join(root, "broken");
    mkdirSync(broken);
    git(broken, "init", "-q", "-b", "main");
    git(broken, "commit", "-q", "--allow-empty", "-m", "init");
    mkdirSync(join(broken, ".twig"));
    writeFileSync(join(broken, ".twig", "state.json"), "{not json");
    const there = await startServer({ cwd: broken, env: home.env });
    try {
      const context = promptText(await there.client.getPrompt({ name: "branch-context" }));
      expect(context).toStartWith("Branch: main\nno_twig_state: Failed to parse state file ");
      const stack = promptText(await there.client.getPrompt({ name: "stack-status" }));
      expect(stack).toContain("\n\nno_twig_state: Failed to parse state file ");
    } finally {
      await there.close();
    }
  });
});
