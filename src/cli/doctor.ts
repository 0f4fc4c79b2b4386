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
  checks.push(await checkState(ctx, repository.repo));
  checks.push(await checkRegistry(ctx, repository.repo));
  checks.push(checkDirectories(ctx));
  checks.push(await checkNetrc(ctx));

  let githubHost: string | null = null;
  if (options.disabled.has("github")) {
    checks.push(check("github", "GitHub", "info", "turned off with --disable github"));
  } else {
    const github = await checkGitHub(ctx);
    checks.push(...github.checks);
    githubHost = github.host;
  }
  let jiraReady = false;
  if (options.disabled.has("jira")) {
    checks.push(check("jira", "Jira", "info", "turned off with --disable jira"));
  } else {
    const jira = await checkJira(ctx);
    checks.push(...jira.checks);
    jiraReady = jira.base !== null;
  }
  if (options.online) {
    if (githubHost !== null) checks.push(await checkGitHubOnline(ctx, githubHost));
    if (jiraReady) checks.push(await checkJiraOnline(ctx));
  }

  const header = `twig-mcp ${pkg.version} (${platform}-${process.arch}) at ${process.execPath}`;
  if (options.json) {
    await writeJson(`${JSON.stringify({ version: pkg.version, checks, summary: summary(checks) }, null, 2)}\n`);
  } else {
    await writeOut(renderReport(header, checks));
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
