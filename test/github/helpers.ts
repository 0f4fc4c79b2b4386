import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "../../src/core/context.ts";
import { toolError } from "../../src/core/errors.ts";
import { createLogger } from "../../src/core/log.ts";
import { err, ok, type Result } from "../../src/core/result.ts";
import { githubTools } from "../../src/tools/all.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { CallInfo, ToolDefinition } from "../../src/tools/shared/define.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { gitOrThrow } from "../support/git-repo.ts";

export const TOKEN = "ghp_testTOKEN0123456789abcdefSECRET";

const cleanups: Array<() => void> = [];

/** Removes every temporary directory made through these helpers. */
export function cleanupTemp(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

export function tempDir(prefix = "twig-mcp-gh-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TestContext {
  ctx: ServiceContext;
  home: string;
  /** Every log line the server wrote (trace level). */
  logs: string[];
}

const NO_REPO = err(
  toolError("no_repo", "twig-mcp was started outside a git repository", "Run twig-mcp from within a git repository."),
);

/**
 * A hermetic context: temporary HOME (so no real `.netrc` or gh config is read), only the given
 * environment, fast retry settings, and a logger that captures everything.
 */
export function makeContext(options: { env?: Env; repo?: Result<string>; home?: string } = {}): TestContext {
  const home = options.home ?? tempDir("twig-mcp-gh-home-");
  const env: Env = {
    HOME: home,
    // The machine's /etc/gitconfig never matters; a test's own ~/.gitconfig in `home` does.
    GIT_CONFIG_NOSYSTEM: "1",
    TWIG_MCP_HTTP_TIMEOUT_MS: "2000",
    TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1",
    TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS: "1",
    ...options.env,
  };
  const logs: string[] = [];
  const ctx = createTestContext({
    env,
    home,
    dirs: twigDirs(env, "linux", home),
    repo: options.repo ?? NO_REPO,
    log: createLogger(3, (line) => logs.push(line)),
  });
  return { ctx, home, logs };
}

export function tool(name: string): ToolDefinition {
  const found = githubTools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

export function callInfo(signal: AbortSignal = new AbortController().signal): CallInfo {
  return { signal };
}

/** Calls a tool's handler as the wire layer would (arguments already validated). */
export async function callTool(
  name: string,
  args: Record<string, unknown>,
  ctx: ServiceContext,
  info: CallInfo = callInfo(),
): Promise<Result<Record<string, unknown>>> {
  const definition = tool(name);
  return (await definition.handler(args, ctx, info)) as Result<Record<string, unknown>>;
}

/** Runs git hermetically in `cwd`, with `cwd` as HOME (see test/support/git-repo.ts). */
export function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, cwd, ...args);
}

/** A real repository with one commit on `branch` and the given remotes (in order). */
export function makeRepo(options: {
  branch?: string;
  remotes?: Array<[string, string]>;
  state?: unknown;
  extraConfig?: Array<[string, string]>;
}): string {
  const dir = tempDir("twig-mcp-gh-repo-");
  git(dir, "init", "-q", "-b", options.branch ?? "main");
  git(dir, "commit", "-q", "--allow-empty", "-m", "init");
  for (const [name, url] of options.remotes ?? []) git(dir, "remote", "add", name, url);
  for (const [key, value] of options.extraConfig ?? []) git(dir, "config", key, value);
  if (options.state !== undefined) {
    mkdirSync(join(dir, ".twig"), { recursive: true });
    writeFileSync(join(dir, ".twig", "state.json"), JSON.stringify(options.state, null, 2));
  }
  return dir;
}

export function stateWith(branches: Record<string, number | null>): unknown {
  return {
    version: 1,
    updated_at: "2025-06-03T14:22:07Z",
    worktrees: [],
    branches: Object.fromEntries(
      Object.entries(branches).map(([branch, pr]) => [
        branch,
        { branch, jira_issue: null, github_pr: pr, created_at: "2025-06-01T10:00:00+00:00" },
      ]),
    ),
    dependencies: [],
    root_branches: [],
  };
}

export function okRepo(path: string): Result<string> {
  return ok(path);
}

/** Fails the test with the error when a result is not ok; returns the value. */
export function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}

export function expectErr<T>(result: Result<T>): { code: string; message: string; hint?: string } {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value).slice(0, 500)}`);
  return result.error;
}
