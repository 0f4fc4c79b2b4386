import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { runBinary } from "../support/binary.ts";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE, EXAMPLE_TREE_TEXT, twigJson } from "../support/fixtures.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

let home: HermeticHome;
let repo: GitRepo;
let server: RunningServer;

beforeAll(async () => {
  home = makeHermeticHome();
  repo = makeRepo({ commit: true });
  for (const branch of EXAMPLE_BRANCHES.slice(1)) repo.git("branch", branch);
  repo.git("checkout", "-q", "feature/auth-ui");
  mkdirSync(repo.path(".twig"));
  writeFileSync(repo.path(".twig", "state.json"), twigJson(EXAMPLE_STATE));
  server = await startServer({ cwd: repo.root, env: home.env });
});
afterAll(async () => {
  await server?.close();
  repo.cleanup();
  home.cleanup();
});

function twigMcp(args: string[], options: { stdin?: string; cwd?: string } = {}) {
  return runBinary(args, { cwd: options.cwd ?? repo.root, env: home.env, stdin: options.stdin ?? "" });
}

describe("twig-mcp tools", () => {
  test("one line per enabled tool: name, group, first sentence of its description", async () => {
    const { stdout, code } = await twigMcp(["tools"]);
    expect(code).toBe(0);
    const listed = await server.client.listTools();
    const lines = stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(listed.tools.map((t) => t.name));
    expect(stdout).toMatch(
      /^get_current_branch +local +Get the current git branch name and its linked Jira issue and GitHub PR\.$/m,
    );
    expect(stdout).toMatch(
      /^get_branch_context +local +Start here: the branch, stack, children, own commits, push state, PR and Jira summaries, next steps\.$/m,
    );
    expect(stdout).toMatch(/^list_pull_requests +github +/m);
    expect(stdout).toMatch(/^get_jira_issue +jira +/m);
  });

  test("--disable removes a group", async () => {
    const { stdout } = await twigMcp(["tools", "--disable", "github", "--disable", "jira"]);
    expect(stdout).not.toMatch(/ (github|jira) /);
    expect(stdout.trimEnd().split("\n")).toHaveLength(9);
  });

  test("--json is exactly what tools/list publishes", async () => {
    const { stdout } = await twigMcp(["tools", "--json"]);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(await server.client.listTools())));
  });
});

describe("TWIG_MCP_REPO and TWIG_MCP_DISABLE", () => {
  const withEnv = (args: string[], env: Record<string, string>, cwd = repo.root) =>
    runBinary(args, { cwd, env: { ...home.env, ...env }, stdin: "" });

  test("apply to tools and call as they do to the server, in any letter case", async () => {
    const tools = await withEnv(["tools"], { TWIG_MCP_DISABLE: "GitHub, JIRA" });
    expect(tools.stdout).not.toMatch(/ (github|jira) /);
    // The local tools, get_stack_status and get_branch_context among them: they answer without GitHub and Jira.
    expect(tools.stdout.trimEnd().split("\n")).toHaveLength(9);
    const call = await withEnv(["call", "get_current_branch"], { TWIG_MCP_REPO: repo.root }, home.home);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ branch: "feature/auth-ui" });
  });

  test("an unknown word is ignored with a warning on stderr; the rest still applies", async () => {
    const { stdout, stderr, code } = await withEnv(["tools"], { TWIG_MCP_DISABLE: "jira, gitlab" });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/ jira /);
    expect(stdout).toMatch(/ github /);
    expect(stderr).toContain("warning: TWIG_MCP_DISABLE: ignored 'gitlab'");
  });

  test("an unknown word never stops the server", async () => {
    const env = { ...home.env, TWIG_MCP_DISABLE: "jira,gitlab" };
    const started = await startServer({ cwd: repo.root, env });
    try {
      const names = (await started.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("list_pull_requests");
      expect(names).not.toContain("get_jira_issue");
      expect(started.stderr()).toContain("TWIG_MCP_DISABLE: ignored 'gitlab'");
    } finally {
      await started.close();
    }
  });
});

describe("twig-mcp call", () => {
  test("prints the data as indented JSON, and a drawn tree as text", async () => {
    const { stdout, stderr, code } = await twigMcp(["call", "get_branch_tree"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const [json, tree] = stdout.split("\ntree_text:\n") as [string, string];
    expect(JSON.parse(json)).toEqual((await server.call("get_branch_tree")).envelope.data);
    expect(json).toContain('\n  "root": "main",\n');
    expect(tree).toBe(EXAMPLE_TREE_TEXT.endsWith("\n") ? EXAMPLE_TREE_TEXT : `${EXAMPLE_TREE_TEXT}\n`);
  });

  test("--json prints the envelope text the server sends, byte for byte", async () => {
    for (const [tool, args] of [
      ["get_current_branch", {}],
      ["get_branch_stack", { branch: "feature/auth-ui" }],
      ["get_branch_metadata", { branch: "nope" }],
    ] as const) {
      const { stdout } = await twigMcp(["call", tool, JSON.stringify(args), "--json"]);
      expect(stdout).toBe(`${(await server.call(tool, args)).text}\n`);
    }
  });

  test("arguments as key=value (text stays text), as JSON, or on standard input", async () => {
    const viaPairs = await twigMcp(["call", "get_branch_stack", "branch=feature/auth-ui"]);
    const viaJson = await twigMcp(["call", "get_branch_stack", '{"branch":"feature/auth-ui"}']);
    const viaStdin = await twigMcp(["call", "get_branch_stack", "-"], { stdin: '{"branch":"feature/auth-ui"}' });
    expect(viaPairs.code).toBe(0);
    expect(JSON.parse(viaPairs.stdout).stack.map((b: { branch: string }) => b.branch)).toEqual([
      "feature/auth-ui",
      "feature/auth",
      "main",
    ]);
    expect(viaJson.stdout).toBe(viaPairs.stdout);
    expect(viaStdin.stdout).toBe(viaPairs.stdout);
    const numeric = await twigMcp(["call", "get_branch_metadata", "branch=1234"]);
    expect(numeric.stderr).toContain("Branch '1234' not found in twig state");
  });

  test("a tool error goes to stderr with its code and hint, and exits 1", async () => {
    const { stdout, stderr, code } = await twigMcp(["call", "get_branch_metadata", "branch=nope"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "error [not_found]: Branch 'nope' not found in twig state\nhint: Use `list_branches` to see tracked branches.\n",
    );
  });

  test("--repo selects another repository; outside one, repository tools answer no_repo", async () => {
    const elsewhere = await twigMcp(["call", "get_current_branch", "--repo", repo.root], { cwd: home.home });
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ branch: "feature/auth-ui" });
    const outside = await twigMcp(["call", "get_current_branch"], { cwd: home.home });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("error [no_repo]");
  });

  test.each([
    [["call", "get_brnch_tree"], "unknown tool 'get_brnch_tree'. Did you mean 'twig-mcp call get_branch_tree'?"],
    [
      ["call", "list_pull_requests", "--disable", "github"],
      "unknown tool 'list_pull_requests' (groups turned off: github)",
    ],
    [["call", "get_branch_stack", "branch"], "'branch' is not key=value"],
    [["call", "get_branch_stack", "{nope"], "the arguments are not valid JSON"],
    [["call", "get_branch_stack", "[1]"], "'[1]' is not key=value"],
  ])("%p is a usage error (exit 2)", async (args, message) => {
    const { stderr, code } = await twigMcp(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  test("invalid arguments are the tool's invalid_params error", async () => {
    const { stderr, code } = await twigMcp(["call", "get_branch_stack", "branch=../x"]);
    expect(code).toBe(1);
    expect(stderr).toStartWith("error [invalid_params]:");
  });

  test("a missing argument lists the tool's arguments, not its inputSchema a shell user cannot see", async () => {
    const { stderr, code } = await twigMcp(["call", "get_branch_metadata"]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error [invalid_params]: Invalid arguments for get_branch_metadata: missing required argument "branch"\n' +
        "hint: get_branch_metadata takes: branch (required), repo.\n",
    );
  });
});

describe("--help", () => {
  test.each([
    ["tools", ["--json", "--disable"]],
    ["call", ["<TOOL>", "key=value", "--json", "--repo"]],
    ["config", ["claude-desktop", "claude-code", "cursor", "codex", "vscode", "--write", "--scope", ".bak"]],
    ["doctor", ["--online", "--json", "Exit status"]],
  ])("twig-mcp %s --help", async (command, words) => {
    for (const argv of [
      [command, "--help"],
      ["help", command],
    ]) {
      const { stdout, code } = await twigMcp(argv);
      expect(code).toBe(0);
      for (const word of words) expect(stdout).toContain(word);
    }
  });

  test("the top-level help lists the commands", async () => {
    const { stdout } = await twigMcp(["--help"]);
    for (const command of ["tools", "call <TOOL>", "config <CLIENT>", "doctor"]) expect(stdout).toContain(command);
  });
});
