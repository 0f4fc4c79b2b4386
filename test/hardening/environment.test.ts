/**
 * A repository is untrusted content: `.env*` files, `bunfig.toml` (with a preload script),
 * `tsconfig.json` and `package.json` in it must not change the compiled binary's behaviour —
 * neither when the server runs in that directory nor when `--repo` points at it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runBinary } from "../support/binary.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { RawServer } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const INJECTED = "ghp_injectedFromDotEnv000000000000000";

let world: World;
const github = useFakeGitHub({ resetAfterEach: false });
let marker: string;

beforeAll(async () => {
  github.addPull({ owner: "octo", repo: "shop", number: 43 });
  world = makeWorld();
  marker = join(world.repo.sandbox, "preload-ran");
  const dotenv = [
    `GH_TOKEN=${INJECTED}`,
    `GITHUB_TOKEN=${INJECTED}`,
    `GITHUB_API_URL=${github.url}`,
    `JIRA_HOST=${github.url}`,
    "JIRA_EMAIL=evil@example.com",
    `JIRA_API_TOKEN=${INJECTED}`,
    "TWIG_MCP_HTTP_TIMEOUT_MS=1",
    `HOME=${world.repo.sandbox}`,
    `XDG_DATA_HOME=${world.repo.sandbox}`,
    "",
  ].join("\n");
  for (const name of [".env", ".env.local", ".env.production", ".env.development", ".env.test"]) {
    world.repo.write(name, dotenv);
  }
  world.repo.write("evil-preload.ts", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
  world.repo.write(
    "bunfig.toml",
    [
      'preload = ["./evil-preload.ts"]',
      'logLevel = "debug"',
      "[define]",
      `"process.env.GH_TOKEN" = "\\"${INJECTED}\\""`,
      "[run]",
      "bun = true",
      "",
    ].join("\n"),
  );
  world.repo.write("tsconfig.json", JSON.stringify({ compilerOptions: { paths: { "*": ["./evil/*"] } } }));
  world.repo.write(
    "package.json",
    JSON.stringify({ name: "evil", type: "commonjs", imports: { "#x": "./evil-preload.ts" } }),
  );
  writeFileSync(
    join(world.root, "evil-preload.js"),
    `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`,
  );
});

afterAll(async () => {
  world?.cleanup();
});

describe.each([
  ["started in the repository", (w: World) => ({ cwd: w.root, args: [] as string[] })],
  ["pointed at it with --repo", (w: World) => ({ cwd: w.home, args: ["--repo", w.root] })],
])("%s", (_label, where) => {
  test(".env, bunfig.toml, tsconfig.json and package.json change nothing", async () => {
    const { cwd, args } = where(world);
    const server = await RawServer.start({ cwd, env: world.env, args });
    try {
      await server.initialize();
      const current = await server.call("get_current_branch");
      expect(current.structured).toMatchObject({ branch: "feature/auth-ui" });

      const pr = await server.call("get_pull_request", { pr_number: 43 });
      expect(pr.envelope.error?.code).toBe("credentials_missing");
      const jira = await server.call("get_jira_issue", { issue_key: "SHOP-1" });
      expect(jira.envelope.error?.code).toBe("credentials_missing");
      expect(jira.envelope.error?.message).toContain("JIRA_HOST");

      // The registry under the real HOME is still the one read.
      const repos = await server.call("list_repositories");
      expect(repos.structured).toMatchObject({ repositories: [{ name: "shop" }] });
      expect(server.stderr()).not.toContain("DEBUG");
    } finally {
      expect(await server.close()).toBe(0);
    }
    expect(github.requests).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });
});

/**
 * The environment is trusted (docs/security.md, "Environment switches"): the Bun runtime reads some
 * variables natively before any twig-mcp code runs, and no build option turns them off. This pins
 * the list the docs give, so that a Bun upgrade that changes it fails here and the docs are updated.
 */
describe("Bun variables the compiled binary honours (documented in docs/security.md)", () => {
  const scratch = () => {
    const dir = join(world.repo.sandbox, `env-${crypto.randomUUID()}`);
    mkdirSync(dir);
    return dir;
  };

  test("BUN_BE_BUN=1 turns it into the bun CLI", async () => {
    const run = await runBinary(["--version"], { cwd: scratch(), env: { ...world.env, BUN_BE_BUN: "1" } });
    expect(run.stdout.trim()).toBe(Bun.version);
  });

  test("BUN_OPTIONS --preload runs a script; NODE_OPTIONS --require does not", async () => {
    const dir = scratch();
    const preload = join(dir, "preload.js");
    writeFileSync(preload, `require("node:fs").writeFileSync(${JSON.stringify(join(dir, "ran"))}, "x");\n`);
    await runBinary(["--version"], { cwd: dir, env: { ...world.env, NODE_OPTIONS: `--require ${preload}` } });
    expect(existsSync(join(dir, "ran"))).toBe(false);
    await runBinary(["--version"], { cwd: dir, env: { ...world.env, BUN_OPTIONS: `--preload ${preload}` } });
    expect(existsSync(join(dir, "ran"))).toBe(true);
  });

  test("BUN_BYTECODE_ORDER_OUT makes it write its bytecode profile", async () => {
    const dir = scratch();
    const run = await runBinary(["--version"], {
      cwd: dir,
      env: { ...world.env, BUN_BYTECODE_ORDER_OUT: join(dir, "order") },
    });
    expect(run.stdout).toStartWith("twig-mcp ");
    expect(existsSync(join(dir, "order"))).toBe(true);
  });
});
