import type { Context } from "../core/context.ts";
import { type ErrorCode, type ToolError, toolError } from "../core/errors.ts";
import { clip, scrubControl, trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  GITHUB_COM,
  isOtherForge,
  knownGitHubHosts,
  normalizeHostname,
  parseHostSetting,
  readGhHosts,
} from "../creds/github-hosts.ts";
import { readSshHostNames, type SshHostNames } from "../creds/ssh-config.ts";
import { type Remote, readEffectiveConfig, remoteUrls } from "../git/config.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { openWorkspace } from "../repo/workspace.ts";

/** The repository a GitHub call is about: `host` lowercase, with a port only when it matters. */
export type GitHubTarget = { host: string; owner: string; repo: string };

export type TargetArgs = { owner?: string | undefined; repo?: string | undefined };

const PASS_OWNER_REPO = "Or pass `owner` and `repo` to name the GitHub repository directly.";
const fail = (code: ErrorCode, message: string, hint: string) => err(toolError(code, message, hint));

/**
 * Which GitHub repository a call is about: `owner`/`repo` (on `GH_HOST`, else github.com), else the default
 * repository's remotes. `named` `null`: a tool that cannot name another repository (its hints do not offer to).
 * `open`: the workspace as the call already opened it, so one call discovers the repository once.
 */
export async function resolveTarget(
  ctx: Context,
  named: TargetArgs | null,
  open: () => Promise<Result<DiscoveredRepo>> = () => openWorkspace(ctx),
): Promise<Result<GitHubTarget>> {
  const args = named ?? {};
  const withHint = (error: ToolError) =>
    err(named === null ? error : { ...error, hint: error.hint ? `${error.hint} ${PASS_OWNER_REPO}` : PASS_OWNER_REPO });
  if ((args.owner === undefined) !== (args.repo === undefined)) {
    return fail(
      "invalid_params",
      `Pass both \`owner\` and \`repo\`, or neither (got only \`${args.owner !== undefined ? "owner" : "repo"}\`)`,
      "Give both to name a repository explicitly, or omit both to use the current repository's GitHub remote.",
    );
  }
  const ghHost = parseHostSetting(ctx.env.GH_HOST);
  if (args.owner !== undefined && args.repo !== undefined) {
    if (!isGitHubName(args.repo)) {
      return fail(
        "invalid_params",
        `'${args.repo.slice(0, 100)}' is not a GitHub repository name`,
        "With `owner`, `repo` is the GitHub repository name: letters, digits, '.', '-' and '_'.",
      );
    }
    return ok({ host: ghHost ?? GITHUB_COM, owner: args.owner, repo: args.repo });
  }
  // Read fresh, with every level's `insteadOf` rules applied.
  const repo = await open();
  const config = repo.ok ? await readEffectiveConfig(repo.value, ctx) : repo;
  if (!config.ok) return withHint(config.error);
  const hosts = await readGhHosts(ctx);
  const loggedIn = hosts.kind === "found" ? [...hosts.value.keys()] : [];
  return chooseRemote(remoteUrls(config.value), {
    ghHost,
    isGitHubHost: knownGitHubHosts(ctx.env, loggedIn),
    sshHostName: await readSshHostNames(ctx),
    nameable: named !== null,
  });
}

/**
 * The remote naming the GitHub repository, `origin` first: with `ghHost`, one on that host, else any, moved to that
 * host; else one on a known GitHub host; else one on an unknown host (Enterprise Server) not a known other forge.
 */
export function chooseRemote(
  remotes: readonly Remote[],
  options: {
    ghHost: string | null;
    isGitHubHost: (host: string) => boolean;
    sshHostName?: SshHostNames;
    nameable?: boolean;
  },
): Result<GitHubTarget> {
  const parsed = remotes.map((remote) => ({ ...remote, parsed: parseRemoteUrl(remote.url, options.sshHostName) }));
  const usable = parsed.filter((r) => r.parsed !== null) as Array<Remote & { parsed: GitHubTarget }>;
  const origin = usable.find((r) => r.name === "origin");
  const first = (test: (host: string) => boolean) =>
    [origin, ...usable].find((r) => r !== undefined && test(r.parsed.host));

  if (options.ghHost) {
    const pick = first((host) => host === options.ghHost) ?? origin ?? usable[0];
    if (pick) return ok({ host: options.ghHost, owner: pick.parsed.owner, repo: pick.parsed.repo });
  } else {
    const pick = first(options.isGitHubHost) ?? first((host) => !isOtherForge(host));
    if (pick) return ok(pick.parsed);
  }

  const orPass = options.nameable === false ? "" : ` ${PASS_OWNER_REPO}`;
  if (remotes.length === 0) {
    return fail(
      "not_found",
      "No GitHub remote found: the repository has no remotes",
      `Add one (git remote add origin https://github.com/OWNER/REPO.git).${orPass}`,
    );
  }
  const shown = parsed
    .slice(0, 5)
    .map((r) => `${clip(scrubControl(r.name), 60)} (${clip(displayRemoteUrl(r.url), 200)})`)
    .join(", ");
  if (usable.length > 0 && usable.every((r) => isOtherForge(r.parsed.host))) {
    return fail(
      "unsupported_repo",
      `No GitHub remote found: ${shown} ${usable.length === 1 ? "is" : "are"} not on GitHub`,
      `The GitHub tools need a GitHub remote.${orPass}`,
    );
  }
  return fail(
    "not_found",
    `No GitHub remote found: could not read owner/repo from ${shown}`,
    `Point 'origin' at a GitHub repository (https://HOST/OWNER/REPO or git@HOST:OWNER/REPO).${orPass}`,
  );
}

/** GitHub's rule for owner and repository names (dots allowed, so `my.repo` stays whole). */
export const GITHUB_NAME = /^[A-Za-z0-9_.-]+$/;

const URL_SCHEMES = new Set(["https", "http", "ssh", "git", "git+ssh", "ssh+git"]);
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/**
 * `host`, `owner` and `repo` of a remote URL in any network form git accepts (scp-like too), the host exact
 * (`github.com.evil.example` stays that); `null` for local paths, `file://`, other than two path segments.
 */
export function parseRemoteUrl(raw: string, sshHostName?: SshHostNames): GitHubTarget | null {
  const url = raw.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  let host: string;
  let path: string;
  if (scheme) {
    const name = (scheme[1] as string).toLowerCase();
    if (!URL_SCHEMES.has(name)) return null;
    const parsed = URL.parse(url);
    if (parsed === null) return null;
    host = requestHost(parsed.hostname, name.includes("ssh") ? sshHostName : undefined);
    // An ssh or git port is not the API's port; an http(s) port is (Enterprise on :8443).
    if ((name === "https" || name === "http") && parsed.port !== "") host = `${host}:${parsed.port}`;
    try {
      path = decodeURIComponent(parsed.pathname);
    } catch {
      return null;
    }
  } else {
    // scp-like syntax: there must be a colon before the first slash.
    const scp = /^(?:[^@/:]+@)?([^@/:]+):(?!\/\/)(.+)$/.exec(url);
    // `C:\x` and `c:/x` are Windows paths, not hosts.
    if (!scp || (scp[1] as string).length === 1) return null;
    host = requestHost(scp[1] as string, sshHostName);
    path = scp[2] as string;
  }
  if (!HOST.test(host)) return null;
  const parts = trimChars(trimChars(path, "/", true).replace(/\.git$/, ""), "/").split("/");
  const [owner = "", repo = ""] = parts;
  return parts.length === 2 && isGitHubName(owner) && isGitHubName(repo) ? { host, owner, repo } : null;
}

/**
 * The host as the API request URL names it (URL parsing rewrites `127.1` and international names only for
 * http(s)): otherwise one server could go by two names, one for credentials, another for the connection.
 */
function requestHost(host: string, sshHostName: SshHostNames | undefined): string {
  const named = (host !== "" && sshHostName?.(host)) || host;
  return normalizeHostname(URL.parse(`https://${named}/`)?.hostname ?? named);
}

/** `.` and `..` are no names: they would walk `/repos/{owner}/…` up the API's path. */
function isGitHubName(name: string): boolean {
  return GITHUB_NAME.test(name) && name !== "." && name !== ".." && name.length <= 100;
}

/**
 * A remote URL without the user-info that may carry a token, cut as git's `transport_anonymize_url` does;
 * a local path is left whole. Controls become spaces.
 */
export function displayRemoteUrl(url: string): string {
  const text = scrubControl(url.trim());
  const at = text.indexOf("@");
  const colon = text.indexOf(":");
  const slash = text.indexOf("/");
  if (at === -1 || colon === -1 || (slash !== -1 && slash < colon) || /^[A-Za-z]:[\\/]/.test(text)) return text;
  const rest = text.slice(at + 1);
  const scheme = /^[A-Za-z0-9+.-]+:\/\//.exec(text);
  if (scheme === null) return rest.includes(":") ? rest : text;
  const pathStart = text.indexOf("/", scheme[0].length);
  return pathStart !== -1 && pathStart < at ? text : `${scheme[0]}${rest}`;
}
