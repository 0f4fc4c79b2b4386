#!/usr/bin/env bun
import { userInfo } from "node:os";
import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import pkg from "../package.json" with { type: "json" };
import { HELP_TEXT, parseArgs, type ServeOptions } from "./cli/args.ts";
import type { Context } from "./context.ts";
import { toolError } from "./errors.ts";
import { CachedFileReader } from "./fs/cached-file.ts";
import { discoverRepository } from "./git/discover.ts";
import { createLogger, type Logger } from "./log.ts";
import { createMcpServer } from "./mcp/server.ts";
import { ToolRegistry } from "./mcp/tool-registry.ts";
import { err, ok, type Result } from "./result.ts";
import type { ToolGroup } from "./tools/define.ts";
import { githubTools } from "./tools/github.ts";
import { jiraTools } from "./tools/jira.ts";
import { localTools } from "./tools/local.ts";
import { homeDir, twigDirs } from "./twig/dirs.ts";

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(`error: ${parsed.error.message}\n`);
    return 2;
  }
  const command = parsed.value;
  if (command.command === "help") {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (command.command === "version") {
    process.stdout.write(`twig-mcp ${pkg.version}\n`);
    return 0;
  }
  return serve(command);
}

async function serve(options: ServeOptions): Promise<number> {
  const log = createLogger(options.verbosity);
  const env = process.env;
  const platform = process.platform;
  const home = homeDir(env, platform, passwdHome);
  if (home === null) {
    log.error("Failed to determine home directory (set HOME)");
    return 1;
  }
  const files = new CachedFileReader();
  const cwd = process.cwd();
  const ctx: Context = {
    env,
    platform,
    home,
    dirs: twigDirs(env, platform, home),
    cwd,
    repo: await defaultRepository(options.repo, cwd, files, log),
    files,
    log,
    fetch: globalThis.fetch,
    now: () => new Date(),
    memo: new Map(),
  };
  const disabledTools = new Set<ToolGroup>();
  if (options.disabled.has("github")) disabledTools.add("github");
  if (options.disabled.has("jira")) disabledTools.add("jira");
  const tools = new ToolRegistry([...localTools, ...githubTools, ...jiraTools], disabledTools);
  const server = createMcpServer(ctx, tools);

  const transport = new StdioServerTransport();
  const finished = new Promise<number>((done) => {
    // The SDK's stdio transport does not watch for EOF; a client that closes our stdin is gone.
    process.stdin.once("end", () => done(0));
    process.stdin.once("close", () => done(0));
    process.once("SIGINT", () => done(0));
    process.once("SIGTERM", () => done(0));
    transport.onclose = () => done(0);
  });
  server.onerror = (error) => log.debug(`protocol: ${error.message}`);
  await server.connect(transport);
  log.info(`serving ${ctx.repo.ok ? ctx.repo.value : "(no repository)"} on stdio`);
  return finished;
}

/** The repository to serve: `--repo` (searched upward from it) or the working directory's. */
async function defaultRepository(
  repoArg: string | null,
  cwd: string,
  files: CachedFileReader,
  log: Logger,
): Promise<Result<string>> {
  const start = repoArg === null ? cwd : resolve(cwd, repoArg);
  const found = await discoverRepository(start, files);
  if (!found.ok) {
    log.warn(found.error.message);
    if (repoArg === null && found.error.code === "no_repo") {
      return err(
        toolError(
          "no_repo",
          "twig-mcp was started outside a git repository",
          "Run twig-mcp from within a git repository, or pass --repo /path/to/repository.",
        ),
      );
    }
    return found;
  }
  if (found.value.workTree === null) {
    return err(toolError("no_repo", `${start} is a bare repository (no working tree)`, "Pass --repo with a checkout."));
  }
  return ok(found.value.workTree);
}

function passwdHome(): string | null {
  try {
    return userInfo().homedir || null;
  } catch {
    return null;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`twig-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
