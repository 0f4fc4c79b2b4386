import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TERMINAL_HINT } from "../../src/cli/help.ts";
import { binaryPath, runBinary } from "../support/binary.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

let home: HermeticHome;
let repo: GitRepo;

beforeAll(() => {
  home = makeHermeticHome();
  repo = makeRepo({ commit: true });
});
afterAll(() => {
  repo.cleanup();
  home.cleanup();
});

const scriptAvailable = Bun.which("script") !== null && process.platform === "linux";

describe("started by hand on a terminal", () => {
  test.skipIf(!scriptAvailable)(
    "on a pseudo-terminal, one line on stderr, then it serves until end of input",
    async () => {
      // util-linux `script` gives the server a pseudo-terminal as stdin, stdout and stderr.
      const proc = Bun.spawn(["script", "-qfec", await binaryPath(), "/dev/null"], {
        cwd: repo.root,
        env: home.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const reader = proc.stdout.getReader();
      let seen = "";
      while (!seen.includes("\n")) {
        const chunk = await reader.read();
        if (chunk.done) break;
        seen += new TextDecoder().decode(chunk.value);
      }
      expect(seen.replace(/\r\n/g, "\n")).toBe(TERMINAL_HINT);
      // Ctrl-D on the terminal: end of input, so the server stops as when a client goes away.
      proc.stdin.write("\x04");
      await proc.stdin.end();
      expect(await proc.exited).toBe(0);
    },
  );

  test("nothing extra when stdin is a pipe", async () => {
    const { stderr, code } = await runBinary([], { cwd: repo.root, env: home.env, stdin: "" });
    expect(code).toBe(0);
    expect(stderr).toBe("");
  });
});

describe("quiet when nothing is wrong", () => {
  test("call … repo=<name> outside a repository prints the result and no warning", async () => {
    mkdirSync(home.twigDataDir, { recursive: true });
    writeFileSync(join(home.twigDataDir, "registry.json"), JSON.stringify([{ path: repo.root, name: "shop" }]));
    const { stdout, stderr, code } = await runBinary(["call", "get_current_branch", "repo=shop"], {
      cwd: home.home,
      env: home.env,
      stdin: "",
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ branch: "main" });
  });

  test("a --repo that is not a repository still warns", async () => {
    const { stderr } = await runBinary(["call", "get_current_branch", "--repo", home.home], {
      cwd: home.home,
      env: home.env,
      stdin: "",
    });
    expect(stderr).toContain("WARN");
  });
});
