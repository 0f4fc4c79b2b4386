/**
 * Optional checks against real MCP clients, run only where they are installed (CI does not need
 * them): `npm install @anthropic-ai/claude-code @modelcontextprotocol/inspector` and put their
 * `node_modules/.bin` on PATH. They check that what `twig-mcp config` prints is what the client
 * accepts, that `tools`/`call` agree with what a client sees, and (Inspector 2.x, which speaks
 * both eras) that a 2026-07-28 client is served without `initialize`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { realpathSync } from "node:fs";
import { binaryPath } from "../support/binary.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const claude = Bun.which("claude");
const inspector = Bun.which("mcp-inspector");
/** Inspector 2.x chooses the protocol era; 0.x only opens with `initialize`. */
const inspectorEras =
  inspector !== null &&
  Bun.spawnSync([inspector, "--cli", "--help"], { stdout: "pipe", stderr: "pipe" })
    .stdout.toString()
    .includes("--protocol-era");

let home: HermeticHome;
let repo: GitRepo;
let binary: string;

beforeAll(async () => {
  home = makeHermeticHome({
    // Claude Code must not try to reach its services from a test.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
  });
  repo = makeRepo({ commit: true });
  binary = realpathSync(await binaryPath());
});
afterAll(() => {
  repo?.cleanup();
  home?.cleanup();
});

async function exec(argv: string[], cwd = repo.root) {
  const proc = Bun.spawn(argv, { cwd, env: home.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

describe.skipIf(!claude)("Claude Code", () => {
  test("runs the printed `claude mcp add` and connects to the server", async () => {
    const printed = await exec([binary, "config", "claude-code"]);
    const command = printed.stdout.trim();
    expect(command).toStartWith("claude mcp add --scope user twig -- ");
    expect((await exec(["sh", "-c", command])).code).toBe(0);
    const got = await exec([claude as string, "mcp", "get", "twig"]);
    expect(got.stdout).toContain("Connected");
    expect(got.stdout).toContain(`Command: ${binary}`);
    const listed = await exec([claude as string, "mcp", "list"]);
    expect(listed.stdout).toMatch(/^twig: .*Connected$/m);
  }, 60_000);

  test("run again with the same binary: nothing to run (claude's add would fail), and it says so", async () => {
    const again = await exec([binary, "config", "claude-code"]);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("Claude Code already has this twig-mcp as its user-scope server 'twig'");
    const add = `claude mcp add --scope user twig -- ${binary}`;
    expect((await exec(["sh", "-c", add])).stderr).toContain("already exists");
  }, 60_000);

  test("a project entry beside the user one: config says which Claude Code starts, and Claude Code sees the conflict", async () => {
    // As in the README's two ways: the user scope by path, the project file by name.
    const written = await exec([binary, "config", "claude-code", "--write", "--command", "twig-mcp"]);
    expect(written.stderr).toContain("Claude Code also has a user-scope 'twig'");
    expect(written.stderr).toContain("and warns of conflicting scopes; to keep only the project-scope one");
    expect(written.stderr).toContain("'claude mcp remove twig -s user'");
    const listed = await exec([claude as string, "mcp", "list"]);
    expect(`${listed.stdout}${listed.stderr}`).toContain("Conflicting scopes");
    // Until the project's entry is approved, Claude Code keeps starting the user-scope one.
    expect((await exec([claude as string, "mcp", "get", "twig"])).stdout).toContain("Scope: User config");
    expect((await exec([claude as string, "mcp", "remove", "twig", "-s", "project"])).code).toBe(0);
  }, 60_000);

  test("re-registering (a moved or upgraded binary): the printed remove-then-add replaces the entry", async () => {
    const printed = await exec([binary, "config", "claude-code", "--disable", "jira"]);
    expect(printed.stdout).toStartWith("claude mcp remove twig -s user\nclaude mcp add --scope user twig -- ");
    expect(printed.stderr).toContain("Claude Code already has a user-scope server 'twig'");
    // The add alone is what fails without the remove.
    const addOnly = printed.stdout.split("\n")[1] as string;
    expect((await exec(["sh", "-c", addOnly])).code).not.toBe(0);
    expect((await exec(["sh", "-ec", printed.stdout])).code).toBe(0);
    const got = await exec([claude as string, "mcp", "get", "twig"]);
    expect(got.stdout).toContain("--disable jira");
  }, 60_000);

  test("reads the .mcp.json that --write makes", async () => {
    expect((await exec([binary, "config", "claude-code", "--write", "--name", "twig-project"])).code).toBe(0);
    const got = await exec([claude as string, "mcp", "get", "twig-project"]);
    expect(got.stdout).toContain("Project config");
    expect(got.stdout).toContain(`Command: ${binary}`);
  }, 60_000);
});

describe.skipIf(!inspector)("MCP Inspector CLI", () => {
  test("tools/list names the same tools as `twig-mcp tools`", async () => {
    const listed = JSON.parse((await exec([inspector as string, "--cli", binary, "--method", "tools/list"])).stdout);
    const ours = (await exec([binary, "tools"])).stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.split(" ")[0]);
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(ours);
  }, 60_000);

  test("tools/call returns the text `twig-mcp call --json` prints", async () => {
    const called = await exec([
      inspector as string,
      "--cli",
      binary,
      "--method",
      "tools/call",
      "--tool-name",
      "get_current_branch",
    ]);
    const ours = await exec([binary, "call", "get_current_branch", "--json"]);
    expect(`${JSON.parse(called.stdout).content[0].text}\n`).toBe(ours.stdout);
  }, 60_000);

  test.skipIf(!inspectorEras)(
    "the 2026-07-28 era: tools/list and tools/call without initialize, results naming the server",
    async () => {
      const modern = (...args: string[]) =>
        exec([inspector as string, "--cli", "--protocol-era", "modern", ...args, binary]);
      const listed = JSON.parse((await modern("--method", "tools/list")).stdout);
      const ours = (await exec([binary, "tools"])).stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split(" ")[0]);
      expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(ours);
      const called = JSON.parse((await modern("--method", "tools/call", "--tool-name", "get_current_branch")).stdout);
      // serverInfo in a result's _meta is sent to 2026-07-28 requests only.
      expect(called._meta?.["io.modelcontextprotocol/serverInfo"]?.name).toBe("twig-mcp");
      expect(`${called.content[0].text}\n`).toBe((await exec([binary, "call", "get_current_branch", "--json"])).stdout);
    },
    60_000,
  );
});
