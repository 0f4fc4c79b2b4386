import pkg from "../../package.json" with { type: "json" };
import { createLogger, silentLogger } from "../core/log.ts";
import { CachedFileReader } from "../fs/cached-file.ts";
import type { DoctorOptions } from "./args.ts";
import { checkGitHub, checkJira, checkNetrc } from "./doctor/checks-credentials.ts";
import { checkDirectories, checkRegistry, checkRepository, checkState } from "./doctor/checks-local.ts";
import { type Check, checker, renderReport, summary } from "./doctor/report.ts";
import { writeErr, writeJson, writeOut } from "./output.ts";
import { processContext, userHome } from "./runtime.ts";

/**
 * `twig-mcp doctor`: everything the server depends on, checked the way the server itself reads it,
 * with what to do about each problem. Exits 1 when a check failed (something blocks use).
 */
export async function runDoctor(options: DoctorOptions, ignored: readonly string[] = []): Promise<number> {
  const home = userHome();
  if (home === null) return writeErr("error: cannot determine the home directory (set HOME)\n", 1);
  const files = new CachedFileReader();
  const repository = await checkRepository({ files, cwd: process.cwd() }, options.repo);
  // The report says what went wrong; the modules' own warnings would only repeat it.
  const log = options.verbosity > 0 ? createLogger(options.verbosity) : silentLogger;
  const ctx = processContext(home, repository.repo, log, files);
  const checks: Check[] = [
    repository.check,
    await checkState(ctx),
    await checkRegistry(ctx),
    checkDirectories(ctx),
    await checkNetrc(ctx),
  ];
  // What the server would ignore in its settings, and therefore does not do.
  if (ignored.length > 0) checks.push(checker("settings", "Settings")("warn", ignored.join("; ")));

  const off = (group: string, title: string) =>
    checker(group, title)("info", `turned off (--disable ${group} or TWIG_MCP_DISABLE)`);
  checks.push(...(options.disabled.has("github") ? [off("github", "GitHub")] : await checkGitHub(ctx, options.online)));
  checks.push(...(options.disabled.has("jira") ? [off("jira", "Jira")] : await checkJira(ctx, options.online)));

  if (options.json) {
    await writeJson(`${JSON.stringify({ version: pkg.version, checks, summary: summary(checks) }, null, 2)}\n`);
  } else {
    await writeOut(
      renderReport(`twig-mcp ${pkg.version} (${process.platform}-${process.arch}) at ${process.execPath}`, checks),
    );
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
