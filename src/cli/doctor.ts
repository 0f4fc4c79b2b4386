import pkg from "../../package.json" with { type: "json" };
import { toolError } from "../core/errors.ts";
import { createLogger, silentLogger } from "../core/log.ts";
import { err, ok } from "../core/result.ts";
import { CachedFileReader } from "../fs/cached-file.ts";
import { withServices } from "../services/services.ts";
import { twigDirs } from "../twig/dirs.ts";
import type { DoctorOptions } from "./args.ts";
import { checkGitHub, checkJira, checkNetrc } from "./doctor/checks-credentials.ts";
import { checkDirectories, checkRegistry, checkRepository, checkState } from "./doctor/checks-local.ts";
import { checkGitHubOnline, checkJiraOnline } from "./doctor/checks-online.ts";
import { type Check, check, renderReport, summary } from "./doctor/report.ts";
import { userHome } from "./home.ts";
import { writeErr, writeJson, writeOut } from "./output.ts";

/**
 * `twig-mcp doctor`: everything the server depends on, checked the way the server itself reads it,
 * with what to do about each problem. Exits 1 when a check failed (something blocks use).
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const home = userHome();
  if (home === null) {
    await writeErr("error: cannot determine the home directory (set HOME)\n");
    return 1;
  }
  const env = process.env;
  const platform = process.platform;
  const files = new CachedFileReader();
  const cwd = process.cwd();
  const dirs = twigDirs(env, platform, home);
  const checks: Check[] = [];

  const repository = await checkRepository({ files, cwd }, options.repo);
  checks.push(repository.check);
  const ctx = withServices({
    env,
    platform,
    home,
    dirs,
    cwd,
    repo: repository.repo.ok ? ok(repository.repo.value) : err(toolError("no_repo", repository.repo.error)),
    files,
    // The report says what went wrong; the modules' own warnings would only repeat it.
    log: options.verbosity > 0 ? createLogger(options.verbosity) : silentLogger,
    fetch: globalThis.fetch,
    now: () => new Date(),
  });
  checks.push(
    await checkState(ctx, repository.repo),
    await checkRegistry(ctx, repository.repo),
    checkDirectories(ctx),
    await checkNetrc(ctx),
  );

  const off = (id: string, title: string) => ({
    checks: [check(id, title, "info", `turned off with --disable ${id}`)],
  });
  const github = options.disabled.has("github") ? { ...off("github", "GitHub"), host: null } : await checkGitHub(ctx);
  const jira = options.disabled.has("jira") ? { ...off("jira", "Jira"), base: null } : await checkJira(ctx);
  checks.push(...github.checks, ...jira.checks);
  if (options.online) {
    if (github.host !== null) checks.push(await checkGitHubOnline(ctx, github.host));
    if (jira.base !== null) checks.push(await checkJiraOnline(ctx));
  }

  const header = `twig-mcp ${pkg.version} (${platform}-${process.arch}) at ${process.execPath}`;
  if (options.json) {
    await writeJson(`${JSON.stringify({ version: pkg.version, checks, summary: summary(checks) }, null, 2)}\n`);
  } else {
    await writeOut(renderReport(header, checks));
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
