import { existsSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import type { Context } from "../core/context.ts";
import { createLogger, silentLogger } from "../core/log.ts";
import { ok, type Result } from "../core/result.ts";
import { resolveJiraCredential } from "../creds/credentials.ts";
import { GITHUB_COM, parseHostSetting } from "../creds/github-hosts.ts";
import { MAX_NETRC_BYTES, netrcPath, parseNetrc } from "../creds/netrc.ts";
import { readBounded } from "../fs/bounded-read.ts";
import { CachedFileReader, decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { discoverRepository } from "../git/discover.ts";
import { readHead } from "../git/refs.ts";
import { resolveGitHubAccess } from "../github/client.ts";
import { githubGet } from "../github/request.ts";
import { resolveTarget } from "../github/target.ts";
import { checkJiraHost, isAtlassianCloudHost, normalizeHost } from "../jira/host.ts";
import type { ServiceContext } from "../tools/shared/context.ts";
import { registryPath } from "../twig/dirs.ts";
import { loadRegistry } from "../twig/registry.ts";
import { loadState, stateFileFor } from "../twig/state.ts";
import type { DoctorOptions } from "./args.ts";
import { twigMcpOnPath } from "./config-self-command.ts";
import { type Check, checker } from "./doctor-check.ts";
import { checkRegistrations } from "./doctor-registrations.ts";
import { writeErr, writeJson, writeOut } from "./output.ts";
import { processContext, userHome } from "./runtime.ts";

/** `twig-mcp doctor`: each dependency checked the way the server reads it, with what to fix; exit 1 if one failed. */
export async function runDoctor(options: DoctorOptions, ignored: readonly string[] = []): Promise<number> {
  const home = userHome();
  if (home === null) return writeErr("error: cannot determine the home directory (set HOME)\n", 1);
  const files = new CachedFileReader();
  const repository = await checkRepository(files, options.repo);
  // The report says what went wrong; the modules' own warnings would only repeat it.
  const log = options.verbosity > 0 ? createLogger(options.verbosity) : silentLogger;
  const ctx = processContext(home, repository.repo, log, files);
  const checks: Check[] = [
    repository.check,
    await checkState(ctx),
    await checkRegistry(ctx),
    checkDirectories(ctx),
    checkPath(),
    ...checkRegistrations({ ...ctx, projectRoot: repository.repo.ok ? repository.repo.value : null }),
    await checkNetrc(ctx),
  ];
  // What the server would ignore in its settings, and therefore does not do.
  if (ignored.length > 0) checks.push(checker("settings", "Settings")("warn", ignored.join("; ")));

  const off = (group: string, title: string) => {
    const check = checker(group, title)("info", `turned off (--disable ${group} or TWIG_MCP_DISABLE)`);
    return options.online ? [check, skipped(`${group}-online`, `${title} sign-in`, "it is turned off")] : [check];
  };
  checks.push(...(options.disabled.has("github") ? off("github", "GitHub") : await checkGitHub(ctx, options.online)));
  checks.push(...(options.disabled.has("jira") ? off("jira", "Jira") : await checkJira(ctx, options.online)));

  if (options.json) {
    await writeJson(`${JSON.stringify({ version: pkg.version, checks, summary: summary(checks) }, null, 2)}\n`);
  } else {
    await writeOut(
      renderReport(`twig-mcp ${pkg.version} (${process.platform}-${process.arch}) at ${process.execPath}`, checks),
    );
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}

/** Which repository the server would serve, and what it has checked out; `repo` becomes `ctx.repo`. */
async function checkRepository(files: CachedFileReader, repoArg: string | null) {
  const start = resolve(repoArg ?? ".");
  const found = await discoverRepository(start, files);
  const result = checker("repository", "repository");
  if (!found.ok) {
    const check =
      repoArg !== null
        ? result("fail", found.error.message, "Pass --repo a directory inside a git checkout.")
        : result(
            "warn",
            `${start} is not inside a git repository`,
            "Started here, the server answers no_repo unless the client names a project (roots) or a request names a registered repository; add --repo PATH to the client's configuration.",
          );
    return { check, repo: found };
  }
  const workTree = found.value.workTree;
  const head = await readHead(found.value);
  let where: string;
  if (!head.ok) where = head.error.message;
  else if (head.value.kind === "detached") where = `detached HEAD at ${head.value.oid.slice(0, 12)}`;
  else where = `on ${head.value.branch}${head.value.unborn ? " (no commits yet)" : ""}`;
  const linked = found.value.isLinkedWorktree ? ", a linked worktree" : "";
  return { check: result("ok", `${workTree} (${where}${linked})`), repo: ok(workTree) };
}

/** twig's per-repository state file: absent is normal, unparseable breaks every stack tool. */
export async function checkState(ctx: Pick<Context, "files" | "repo">): Promise<Check> {
  const result = checker("state", "twig state");
  if (!ctx.repo.ok) return result("info", "no repository, so no state file to read");
  const path = await stateFileFor(ctx, ctx.repo.value);
  if (!existsSync(path)) {
    return result(
      "info",
      `${path} does not exist yet`,
      "twig creates it when it first records a branch here; until then the tools see no twig metadata.",
    );
  }
  const state = await loadState(ctx, ctx.repo.value);
  if (!state.ok) return result("fail", state.error.message, state.error.hint);
  const { branches, roots, invalidNames, invalidJiraKeys } = state.value;
  const counts = `${path}: ${plural(branches.size, "branch", "branches")}, ${plural(roots.length, "root", "roots")}`;
  // Records twig would not have written: tools show them as the file has them, prompts do not.
  if (invalidNames.size > 0 || invalidJiraKeys.size > 0) {
    const problems = [
      plural(invalidNames.size, "name git would refuse", "names git would refuse"),
      plural(invalidJiraKeys.size, "jira_issue that is not a key", "jira_issue values that are not keys"),
    ].filter((part) => !part.startsWith("0 "));
    return result(
      "warn",
      `${counts}; ${problems.join(", ")}`,
      "Prompts leave such records out or quote them. If you did not write them, the file came with the repository: check who committed it.",
    );
  }
  return result("ok", counts);
}

/** twig's global registry of repositories (`list_repositories`, the `repo` argument). */
export async function checkRegistry(ctx: Pick<Context, "files" | "dirs" | "platform" | "repo">): Promise<Check> {
  const { repo } = ctx;
  const result = checker("registry", "twig registry");
  const path = registryPath(ctx.dirs, ctx.platform);
  if (!existsSync(path)) {
    return result(
      "info",
      `${path} does not exist`,
      "Register repositories with `twig git add <path>` to let clients name them in requests.",
    );
  }
  const entries = await loadRegistry(ctx);
  if (!entries.ok) return result("fail", entries.error.message, entries.error.hint);
  const registered = repo.ok && entries.value.some((entry) => resolve(entry.path) === repo.value);
  const note = repo.ok ? (registered ? "; this repository is one of them" : "; this repository is not registered") : "";
  return result("ok", `${path}: ${plural(entries.value.length, "repository", "repositories")}${note}`);
}

/** Where twig keeps its files on this platform, so a user can tell the server looks where twig writes. */
export function checkDirectories(ctx: Pick<Context, "dirs">): Check {
  const { configDir, dataDir } = ctx.dirs;
  const describe = (dir: string) => `${dir}${existsSync(dir) ? "" : " (missing)"}`;
  const detail =
    configDir === dataDir ? describe(configDir) : `config ${describe(configDir)}, data ${describe(dataDir)}`;
  const result = checker("dirs", "twig directories");
  if (existsSync(dataDir)) return result("ok", detail);
  return result("info", detail, "Normal before twig's first run; XDG_CONFIG_HOME / XDG_DATA_HOME move them on Linux.");
}

/** The `twig-mcp` a client started by bare name would run, and whether this one's directory is on PATH. */
export function checkPath(): Check {
  const { onPath, self, same, missingDir } = twigMcpOnPath();
  const result = checker("path", "twig-mcp on PATH");
  // Quoted for the shell rc file, where $HOME stays a variable.
  const home = userHome();
  const dir = home && missingDir?.startsWith(`${home}/`) ? `$HOME${missingDir.slice(home.length)}` : missingDir;
  const addDir = `To run it by name, add its directory to PATH in your shell's rc file (~/.bashrc, ~/.zshrc): export PATH="${dir}:$PATH", then open a new shell.`;
  if (onPath === null) {
    if (missingDir !== null) return result("info", `none: this one's directory, ${missingDir}, is not on PATH`, addDir);
    return result(
      "info",
      "none",
      "Clients then need this program's full path, which `twig-mcp config <client>` registers; copy it onto PATH to run it by name.",
    );
  }
  if (same) return result("ok", onPath);
  return result(
    "warn",
    `${onPath} is another program, not this twig-mcp (${self})${missingDir === null ? "" : `; ${missingDir} is not on PATH`}`,
    "A client that starts `twig-mcp` by name runs that one (upstream twig ships a twig-mcp of its own). Register this one by its path (`twig-mcp config <client>` prints it), or put its directory first on PATH.",
  );
}

/** `--online` without the credentials to sign in: said, so that the report differs from a plain run. */
const skipped = (id: string, title: string, why: string) => checker(id, title)("info", `skipped: ${why}`);

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** `~/.netrc`: twig's credential store. Its secrets are never read into the report, only machine names. */
export async function checkNetrc(ctx: Pick<Context, "home" | "platform">): Promise<Check> {
  const path = netrcPath(ctx);
  const result = checker("netrc", ".netrc");
  // Bounded and type-checked: a FIFO or a link to a device would never finish reading.
  const read = readBounded(path, MAX_NETRC_BYTES);
  switch (read.kind) {
    case "missing":
      return result(
        "info",
        `${path} does not exist`,
        "Credentials can come from environment variables instead; `twig creds` writes this file.",
      );
    case "directory":
    case "special":
      return result("fail", `${path} is not a regular file`, "Replace it with a plain text file.");
    case "too-large":
      return result("fail", `${path} is over ${read.limit} bytes`, "A .netrc is a few lines; check its content.");
    case "unreadable":
      return result("fail", `cannot read ${path}: ${describeFsError(read.error)}`, "Check its permissions.");
  }
  const text = decodeUtf8(read.bytes);
  if (text === null) return result("fail", `${path} is not valid UTF-8`, "Re-save it as UTF-8 text.");
  const machines = [...new Set(parseNetrc(text).map((entry) => entry.machine ?? "default"))];
  const listed = machines.length === 0 ? "no complete entries" : `machines: ${machines.join(", ")}`;
  // Windows has no Unix permission bits; its ACLs are outside what a mode can tell.
  if (ctx.platform !== "win32" && (read.info.mode & 0o077) !== 0) {
    const octal = (read.info.mode & 0o777).toString(8).padStart(3, "0");
    return result(
      "warn",
      `${path} (${listed}) is readable by other users (mode ${octal})`,
      `It holds tokens: chmod 600 ${path}`,
    );
  }
  return result("ok", `${path} (${listed})`);
}

/** The GitHub host (the repository's remotes, else GH_HOST / github.com) and token, resolved as a tool call does. */
export async function checkGitHub(ctx: ServiceContext, online: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  let host = parseHostSetting(ctx.env.GH_HOST) ?? GITHUB_COM;
  if (ctx.repo.ok) {
    const repo = checker("github-repo", "GitHub repository");
    const target = await resolveTarget(ctx, null);
    if (target.ok) host = target.value.host;
    checks.push(
      target.ok
        ? repo("ok", `${target.value.owner}/${target.value.repo} on ${host}`)
        : repo("warn", target.error.message, "GitHub tools then need explicit owner and repo arguments."),
    );
  }
  const token = checker("github-credentials", "GitHub token");
  const access = await resolveGitHubAccess(ctx, host);
  if (access.ok) checks.push(token("ok", `for ${host}: from ${access.value.credential.source}`));
  else if (access.error.code !== "credentials_missing")
    checks.push(token("fail", access.error.message, access.error.hint));
  else checks.push(token("warn", `none for ${host}; GitHub tools answer credentials_missing`, access.error.hint));
  if (!online) return checks;
  if (!access.ok) {
    const why = access.error.code === "credentials_missing" ? `no token for ${host}` : "the token check failed";
    return [...checks, skipped("github-online", "GitHub sign-in", why)];
  }

  const signedIn = await signIn("github-online", "GitHub sign-in", ctx.github(host), async (connection, signal) => {
    const request = { connection, target: { host, owner: "", repo: "" }, now: ctx.now, signal };
    const me = await githubGet(request, "GET /user", {}, v.object({ login: v.string() }), "the signed-in user");
    return me.ok ? ok(`signed in to ${host} as ${me.value.data.login}`) : me;
  });
  return [...checks, signedIn];
}

const CLIENT_ENV_HINT =
  "MCP clients start twig-mcp with their own environment: set it in the server's \"env\" in the client's configuration, not only in your shell.";

/** `JIRA_HOST` and the Jira credentials for it, as the Jira tools resolve them. */
export async function checkJira(ctx: ServiceContext, online: boolean): Promise<Check[]> {
  const host = checker("jira-host", "JIRA_HOST");
  const raw = ctx.env.JIRA_HOST;
  if (raw === undefined || raw === "") {
    const hint = `Set JIRA_HOST to your Jira site (company.atlassian.net), or pass --disable jira. ${CLIENT_ENV_HINT}`;
    const check = host("warn", "not set; Jira tools answer credentials_missing", hint);
    return online ? [check, skipped("jira-online", "Jira sign-in", "JIRA_HOST is not set")] : [check];
  }
  const checked = checkJiraHost(raw);
  if (!checked.ok) {
    const check = host("fail", `${checked.error.code}: ${checked.error.message}`, checked.error.hint);
    return online ? [check, skipped("jira-online", "Jira sign-in", "JIRA_HOST is not usable")] : [check];
  }
  const { base, note } = checked.value;
  const kind = isAtlassianCloudHost(base.hostname)
    ? "Jira Cloud"
    : "Jira Server/Data Center or Cloud, asked at first use";
  const checks = [host("ok", `${base.apiRoot} (${kind})${note === null ? "" : `; ${note}`}`)];
  const credentials = checker("jira-credentials", "Jira credentials");
  const credential = await resolveJiraCredential(ctx, normalizeHost(base.baseUrl));
  if (!credential.ok) {
    const { message, hint } = credential.error;
    const check = credentials("fail", message, `${hint ?? ""} ${CLIENT_ENV_HINT}`.trim());
    return [...checks, check, ...(online ? [skipped("jira-online", "Jira sign-in", "no Jira credentials")] : [])];
  }
  checks.push(credentials("ok", `from ${credential.value.source}`));
  if (!online) return checks;

  const signedIn = await signIn("jira-online", "Jira sign-in", ctx.jira(), async (client, signal) => {
    const schema = v.object({ displayName: v.optional(v.string()), name: v.optional(v.string()) });
    const me = await client.request({ method: "GET", path: "/rest/api/2/myself", schema }, signal);
    if (!me.ok) return me;
    return ok(`signed in to ${client.site} as ${me.value.displayName ?? me.value.name ?? "an unnamed user"}`);
  });
  return [...checks, signedIn];
}

/** `--online`: one request through the tools' client; a service silent for 15 s would not answer a tool either. */
async function signIn<C>(
  id: string,
  title: string,
  connect: Promise<Result<C>>,
  whoAmI: (client: C, signal: AbortSignal) => Promise<Result<string>>,
): Promise<Check> {
  const client = await connect;
  const me = client.ok ? await whoAmI(client.value, AbortSignal.timeout(15_000)) : client;
  return me.ok ? checker(id, title)("ok", me.value) : checker(id, title)("fail", me.error.message, me.error.hint);
}

export function renderReport(header: string, checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.title.length));
  const lines = [header, ""];
  for (const c of checks) {
    lines.push(`  ${`[${c.status === "fail" ? "FAIL" : c.status}]`.padEnd(6)}  ${c.title.padEnd(width)}  ${c.detail}`);
    if (c.hint) {
      const indent = " ".repeat(2 + 6 + 2 + width + 2);
      for (const line of wrap(c.hint, Math.max(40, 100 - indent.length))) lines.push(indent + line);
    }
  }
  lines.push("", summary(checks));
  return `${lines.join("\n")}\n`;
}

/** Hints wrapped for a 100-column terminal, between words; a longer word gets a line of its own. */
function wrap(text: string, width: number): string[] {
  return text.replace(/\s+/g, " ").match(new RegExp(`\\S.{0,${width - 1}}(?=\\s|$)|\\S+`, "g")) ?? [];
}

export function summary(checks: readonly Check[]): string {
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  const warnings = warned === 1 ? "1 warning" : `${warned} warnings`;
  if (failed === 0) return warned === 0 ? "Everything twig-mcp needs is in place." : `Nothing blocks use; ${warnings}.`;
  return `${failed === 1 ? "1 problem blocks" : `${failed} problems block`} use; ${warnings}.`;
}
