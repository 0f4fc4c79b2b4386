import type { Context } from "../core/context.ts";
import { type ErrorCode, type ToolError, toolError } from "../core/errors.ts";
import { scrubControl } from "../core/http-policy.ts";
import { clip, trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readGhHosts } from "../creds/gh-config.ts";
import {
  GITHUB_COM,
  ghHostOverride,
  isOtherForge,
  knownGitHubHosts,
  normalizeHostname,
} from "../creds/github-hosts.ts";
import { readSshHostNames, type SshHostNames } from "../creds/ssh-config.ts";
import { readEffectiveConfig } from "../git/config-levels.ts";
import { discoverRepository } from "../git/discover.ts";
import { type Remote, remoteUrls } from "../git/remotes.ts";

export interface TargetArgs {
  owner?: string | undefined;
  repo?: string | undefined;
}

const PASS_OWNER_REPO = "Or pass `owner` and `repo` to name the GitHub repository directly.";
const fail = (code: ErrorCode, message: string, hint: string) => err(toolError(code, message, hint));

/**
 * Decides which GitHub repository a call is about. An explicit `owner`/`repo` pair wins (host:
 * `GH_HOST`, else github.com), so the tools work outside a clone. Otherwise the default
 * repository's remotes are read: see {@link chooseRemote}.
 */
export async function resolveTarget(ctx: Context, named: TargetArgs | null): Promise<Result<GitHubTarget>> {
  // `null`: the calling tool cannot name another repository, so its hints do not offer to.
  const args = named ?? {};
  const passOwnerRepo = named === null ? "" : PASS_OWNER_REPO;
  const hasOwner = args.owner !== undefined;
  const hasRepo = args.repo !== undefined;
  if (hasOwner !== hasRepo) {
    return fail(
      "invalid_params",
      `Pass both \`owner\` and \`repo\`, or neither (got only \`${hasOwner ? "owner" : "repo"}\`)`,
      "Give both to name a repository explicitly, or omit both to use the current repository's GitHub remote.",
    );
  }
  const ghHost = ghHostOverride(ctx.env);
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
  if (!ctx.repo.ok) return err(withHint(ctx.repo.error, passOwnerRepo));
  // Read fresh, a bare repository too, with the system's, the user's and the repository's `insteadOf` rules applied.
  const repo = await discoverRepository(ctx.repo.value, ctx.files);
  const config = repo.ok ? await readEffectiveConfig(repo.value, ctx) : repo;
  if (!config.ok) return err(withHint(config.error, passOwnerRepo));
  const hosts = await readGhHosts(ctx);
  const loggedIn = hosts.kind === "found" ? [...hosts.value.keys()] : [];
  const sshHostName = await readSshHostNames(ctx);
  return chooseRemote(remoteUrls(config.value), {
    ghHost,
    isGitHubHost: knownGitHubHosts(ctx.env, loggedIn),
    sshHostName,
    nameable: named !== null,
  });
}

export interface RemoteChoiceOptions {
  /** `GH_HOST`: every request goes to this host; remotes only supply owner and repo. */
  ghHost: string | null;
  isGitHubHost: (host: string) => boolean;
  /** `HostName`s from `~/.ssh/config`, for ssh remotes that name a `Host` alias. */
  sshHostName?: SshHostNames;
  /** Whether the caller can pass `owner` and `repo` instead (default: yes), which hints then offer. */
  nameable?: boolean;
}

/**
 * Picks the remote that names the GitHub repository:
 *
 * - with `GH_HOST`: a remote on that host (`origin` first), else `origin`, else the first
 *   parseable remote, its owner/repo taken to that host;
 * - else `origin` when it is on a known GitHub host, else the first remote that is;
 * - else `origin` (then the first remote) on an unknown host, taken to be GitHub Enterprise
 *   Server, unless the host is a known other forge (GitLab, Bitbucket, …).
 */
export function chooseRemote(remotes: readonly Remote[], options: RemoteChoiceOptions): Result<GitHubTarget> {
  const parsed = remotes.map((remote) => ({ ...remote, parsed: parseRemoteUrl(remote.url, options.sshHostName) }));
  const usable = parsed.filter((r) => r.parsed !== null) as Array<Remote & { parsed: GitHubTarget }>;
  const origin = usable.find((r) => r.name === "origin");
  // `origin` first, then every remote in config order.
  const first = (test: (host: string) => boolean) =>
    [origin, ...usable].find((r) => r !== undefined && test(r.parsed.host));

  if (options.ghHost) {
    const pick = first((host) => host === options.ghHost) ?? origin ?? usable[0];
    if (pick) return ok({ host: options.ghHost, owner: pick.parsed.owner, repo: pick.parsed.repo });
  } else {
    const pick = first(options.isGitHubHost) ?? first((host) => !isOtherForge(host));
    if (pick) return ok(pick.parsed);
  }

  if (remotes.length === 0) {
    return fail(
      "not_found",
      "No GitHub remote found: the repository has no remotes",
      `Add one (git remote add origin https://github.com/OWNER/REPO.git).${orPass(options)}`,
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
      `The GitHub tools need a GitHub remote.${orPass(options)}`,
    );
  }
  return fail(
    "not_found",
    `No GitHub remote found: could not read owner/repo from ${shown}`,
    `Point 'origin' at a GitHub repository (https://HOST/OWNER/REPO or git@HOST:OWNER/REPO).${orPass(options)}`,
  );
}

function orPass(options: RemoteChoiceOptions): string {
  return options.nameable === false ? "" : ` ${PASS_OWNER_REPO}`;
}

function withHint(error: ToolError, extra: string): ToolError {
  if (extra === "") return error;
  return toolError(error.code, error.message, error.hint ? `${error.hint} ${extra}` : extra);
}

/** The repository a GitHub call is about, as a remote names it: `host` lowercase, with a port only when it matters. */
export type GitHubTarget = { host: string; owner: string; repo: string };

/** GitHub's rule for owner and repository names (dots allowed, so `my.repo` stays whole). */
export const GITHUB_NAME = /^[A-Za-z0-9_.-]+$/;

const URL_SCHEMES = new Set(["https", "http", "ssh", "git", "git+ssh", "ssh+git"]);
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/**
 * `host`, `owner` and `repo` of a network remote URL in any form git accepts (`https://`, `http://`,
 * `ssh://` with or without a port, `git://`, scp-like `[user@]host:owner/repo`), less a `.git` suffix
 * and trailing slashes; the host is matched exactly (`github.com.evil.example` stays that host).
 * `null` for anything else: local paths, `file://`, more or fewer than two path segments.
 * `sshHostName` turns the host of an ssh remote (scp-like or `ssh://`) into the `HostName` that
 * `~/.ssh/config` gives that alias, as ssh itself would connect.
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
    const ssh = name === "ssh" || name === "git+ssh" || name === "ssh+git";
    host = normalizeHostname(requestHostname(viaSshConfig(parsed.hostname, ssh ? sshHostName : undefined)));
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
    if (!scp) return null;
    const rawHost = scp[1] as string;
    // `C:\x` and `c:/x` are Windows paths, not hosts.
    if (rawHost.length === 1) return null;
    host = normalizeHostname(requestHostname(viaSshConfig(rawHost, sshHostName)));
    path = scp[2] as string;
  }
  if (!HOST.test(host)) return null;
  const parts = trimChars(trimChars(path, "/", true).replace(/\.git$/, ""), "/").split("/");
  const [owner = "", repo = ""] = parts;
  return parts.length === 2 && isGitHubName(owner) && isGitHubName(repo) ? { host, owner, repo } : null;
}

function viaSshConfig(host: string, sshHostName: SshHostNames | undefined): string {
  return (host !== "" && sshHostName?.(host)) || host;
}

/**
 * The host as the API request URL will name it. WHATWG URL parsing rewrites hosts only for http(s):
 * `0`, `127.1` and `0x7f.1` become dotted IPv4 and international names become punycode, while
 * `git://` and `ssh://` URLs keep them as written — so without this, one server could go by two
 * names (one for credentials, another for the connection).
 */
function requestHostname(host: string): string {
  return URL.parse(`https://${host}/`)?.hostname ?? host;
}

/** `.` and `..` are no names: they would walk `/repos/{owner}/…` up the API's path. */
export function isGitHubName(name: string): boolean {
  return GITHUB_NAME.test(name) && name !== "." && name !== ".." && name.length <= 100;
}

/**
 * A remote URL with its user-info removed, the way git's `transport_anonymize_url` does it, so
 * that what is shown matches what git itself would print: everything up to the first `@` goes,
 * unless that `@` lies in the path (after the first `/` past `scheme://`) or, for the scp form
 * `[user[:pass]@]host:path`, no `:` follows it. Remote URLs sometimes carry a token
 * (`https://x-access-token:TOKEN@github.com/o/r`), and a password may hold `#` or `?`.
 * Control characters are shown as spaces: the URL comes from a cloned repository's config.
 */
export function displayRemoteUrl(url: string): string {
  const text = url.trim().replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
  const at = text.indexOf("@");
  if (at === -1 || isLocalPath(text)) return text;
  const rest = text.slice(at + 1);
  const scheme = /^[A-Za-z0-9+.-]+:\/\//.exec(text);
  if (scheme === null) return rest.includes(":") ? rest : text;
  const slash = text.indexOf("/", scheme[0].length);
  if (slash !== -1 && slash < at) return text;
  return `${scheme[0]}${rest}`;
}

/** git's `url_is_local_not_ssh`: no `:` before the first `/`, or a DOS drive letter. */
function isLocalPath(url: string): boolean {
  const colon = url.indexOf(":");
  const slash = url.indexOf("/");
  return colon === -1 || (slash !== -1 && slash < colon) || /^[A-Za-z]:[\\/]/.test(url);
}
