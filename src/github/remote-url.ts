import { trimChars } from "../core/plain-text.ts";
import { normalizeHostname } from "../creds/github-hosts.ts";
import type { SshHostNames } from "../creds/ssh-config.ts";
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
