import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { binaryPath, runBinary } from "../support/binary.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

let home: HermeticHome;
/** The demo's temporary directories go here, so the test sees everything it made. */
let tmp: string;
let env: Record<string, string>;

beforeAll(() => {
  home = makeHermeticHome();
  tmp = join(home.home, "tmp");
  mkdirSync(tmp);
  env = { ...home.env, TMPDIR: tmp };
});
afterAll(() => home.cleanup());

/** The sample's root, from the line that follows the demo's first line. */
function sampleRoot(stdout: string): string {
  const root = /\n {2}(\/\S+\/shop)\n/.exec(stdout)?.[1];
  expect(root).toBeDefined();
  return root as string;
}

describe("twig-mcp demo", () => {
  test("shows the current branch, a stack, the tree and the stack's status, then how to register; leaves nothing behind", async () => {
    const homeBefore = readdirSync(home.home).sort();
    const { stdout, stderr, code } = await runBinary(["demo"], { cwd: home.home, env });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const root = sampleRoot(stdout);
    expect(root.startsWith(tmp)).toBe(true);
    expect(stdout).toContain('"branch": "feature/auth",\n  "jira_issue": "SHOP-123",\n  "pr_number": 42');
    expect(stdout).toContain("get_branch_stack branch=feature/auth-ui");
    expect(stdout).toContain(
      "main\n├── feature/auth (SHOP-123, #42)\n│   └── feature/auth-ui (SHOP-124, #43)\n" +
        "└── feature/billing (SHOP-200, #51)\n    └── feature/billing-invoices (SHOP-201)\n",
    );
    // The stack's lines, with the commits each branch has of its own, and the parts not asked for.
    expect(stdout).toContain("get_stack_status branch=feature/auth-ui");
    expect(stdout).toContain("2 branches. GitHub disabled. Jira disabled\nfeature/auth  #42 · SHOP-123 · 1 ahead\n");
    // twig-mcp is not on the test's PATH: the install step comes first, then the installed copy registers.
    const binary = realpathSync(await binaryPath());
    expect(stdout).toContain(
      `\n  mkdir -p ~/.local/bin && cp ${binary} ~/.local/bin/\n  ~/.local/bin/twig-mcp config claude-code\n`,
    );
    const ran = await runBinary(["config", "claude-code"], { cwd: home.home, env });
    expect(ran.stdout).toStartWith("claude mcp add --scope user twig -- ");
    expect(existsSync(dirname(root))).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
    // The user's HOME (here the hermetic one) gained nothing: the demo used a HOME of its own.
    expect(readdirSync(home.home).sort()).toEqual(homeBefore);
  });

  test("with this binary on PATH as twig-mcp, the next line is twig-mcp config claude-code", async () => {
    const bin = join(home.home, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(await binaryPath(), join(bin, "twig-mcp"));
    const { stdout } = await runBinary(["demo"], { cwd: home.home, env: { ...env, PATH: `${bin}:${env.PATH}` } });
    rmSync(bin, { recursive: true });
    expect(stdout).toContain("\n  twig-mcp config claude-code\n");
  });

  test("Ctrl-C removes the sample repository", async () => {
    const proc = Bun.spawn([await binaryPath(), "demo", "--keep"], {
      cwd: home.home,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let seen = "";
    while (!seen.includes("until you press Ctrl-C")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      seen += new TextDecoder().decode(chunk.value);
    }
    const root = sampleRoot(seen);
    expect(existsSync(join(root, ".twig", "state.json"))).toBe(true);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(existsSync(dirname(root))).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("without git it says so and makes nothing", async () => {
    const empty = join(home.home, "no-git-here");
    mkdirSync(empty, { recursive: true });
    const { stderr, code } = await runBinary(["demo"], { cwd: home.home, env: { ...env, PATH: empty } });
    expect(code).toBe(1);
    expect(stderr).toContain("git is not on PATH");
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("a git that fails: the error names the step, and everything made so far is removed", async () => {
    const bin = join(home.home, "broken-git");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "git"),
      '#!/bin/sh\ncase "$1" in init) exec /usr/bin/env -i git "$@" ;; esac\necho "fatal: disk full" >&2\nexit 128\n',
      {
        mode: 0o755,
      },
    );
    const { stdout, stderr, code } = await runBinary(["demo"], { cwd: home.home, env: { ...env, PATH: bin } });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      "could not build the sample repository: git symbolic-ref HEAD refs/heads/main failed (exit 128): fatal: disk full",
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("--help, and the command list names it", async () => {
    const help = await runBinary(["demo", "--help"], { cwd: home.home, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("Show what an assistant sees");
    const top = await runBinary(["--help"], { cwd: home.home, env });
    expect(top.stdout).toMatch(/^ {2}demo +Show what an assistant sees/m);
  });
});
