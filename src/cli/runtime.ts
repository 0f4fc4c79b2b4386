import { userInfo } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { toolError } from "../core/errors.ts";
import { createLogger, type Logger } from "../core/log.ts";
import { err, ok, type Result } from "../core/result.ts";
import { CachedFileReader } from "../fs/cached-file.ts";
import { discoverRepository } from "../git/discover.ts";
import { ToolRegistry } from "../mcp/tool-registry.ts";
import { ExposedRepoSelector } from "../repo/selection.ts";
import { allTools } from "../tools/all.ts";
import { withServices } from "../tools/shared/context.ts";
import type { ToolGroup } from "../tools/shared/define.ts";
import { homeDir, twigDirs } from "../twig/dirs.ts";
import type { DisableGroup } from "./args.ts";

/** This user's home as twig computes it (`$HOME`, else the passwd entry; the profile on Windows). */
export function userHome(): string | null {
  return homeDir(process.env, process.platform, () => {
    try {
      return userInfo().homedir || null;
    } catch {
      return null;
    }
  });
}

/** The process's Context around `repo`, with its services. */
export function processContext(home: string, repo: Result<string>, log: Logger, files: CachedFileReader) {
  const { env, platform } = process;
  const dirs = twigDirs(env, platform, home);
  const now = () => new Date();
  return withServices({ env, platform, home, dirs, cwd: process.cwd(), repo, files, log, fetch, now });
}

/** For serving, `call` and `demo`: `--repo`'s repository, else the working directory's, else `CLAUDE_PROJECT_DIR`'s. */
export async function createRuntimeContext(options: { repo: string | null; verbosity: number }) {
  const log = createLogger(options.verbosity);
  const home = userHome();
  if (home === null) {
    log.error("Failed to determine home directory (set HOME)");
    return null;
  }
  const files = new CachedFileReader();
  let found = await discoverRepository(resolve(process.cwd(), options.repo ?? "."), files);
  // Claude Code names the project it started us for; it counts only when the working directory
  // is in no repository, and never over --repo or TWIG_MCP_REPO (already in `options.repo`).
  const project = process.env.CLAUDE_PROJECT_DIR?.trim();
  if (!found.ok && options.repo === null && project && isAbsolute(project)) {
    const inProject = await discoverRepository(project, files);
    if (inProject.ok) found = inProject;
  }
  let repo: Result<string> = found.ok ? ok(found.value.workTree) : found;
  if (!found.ok) {
    // Without --repo, no repository here is normal (Claude Desktop, `call … repo=<name>`): the
    // reason is kept for calls that need one, and worth a warning only when --repo named a place.
    log[options.repo === null ? "info" : "warn"](found.error.message);
    if (options.repo === null && found.error.code === "no_repo") {
      const hint = "Run twig-mcp from within a git repository, or pass --repo /path/to/repository.";
      repo = err(toolError("no_repo", "twig-mcp was started outside a git repository", hint));
    }
  }
  const ctx = processContext(home, repo, log, files);
  ctx.repos = new ExposedRepoSelector(ctx, repo, options.repo !== null);
  return ctx;
}

/** Every tool, less the groups turned off with `--disable`. */
export function createToolRegistry(disabled: ReadonlySet<DisableGroup>, maxReplyTokens?: number): ToolRegistry {
  const groups = new Set<ToolGroup>((["github", "jira"] as const).filter((group) => disabled.has(group)));
  return new ToolRegistry(allTools, groups, maxReplyTokens);
}
