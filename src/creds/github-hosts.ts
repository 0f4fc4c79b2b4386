import type { Env } from "../core/context.ts";
import { trimChars } from "../core/plain-text.ts";

export const GITHUB_COM = "github.com";

/** Lowercased, without a trailing root dot, and GitHub's other git endpoints folded onto `github.com`. */
export function normalizeHostname(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "ssh.github.com" || host === "www.github.com") return "github.com";
  return host;
}

/** GitHub Enterprise Cloud with data residency: `<tenant>.ghe.com`, API at `api.<tenant>.ghe.com`. */
export function isGheCom(host: string): boolean {
  return host.endsWith(".ghe.com") && host.length > ".ghe.com".length;
}

/** Hosts GitHub itself runs, where `GH_TOKEN`/`GITHUB_TOKEN` are meant to be sent (the gh CLI's rule). */
export function isGitHubCloud(host: string): boolean {
  return host === GITHUB_COM || isGheCom(host);
}

/** Hosts that are certainly not GitHub, so a remote there is reported instead of queried. */
const OTHER_FORGES =
  /^(?:codeberg\.org|gitea\.com|git\.sr\.ht|(?:ssh\.)?dev\.azure\.com|source\.developers\.google\.com|(?:gitlab|bitbucket|git-codecommit)\..*|.*\.visualstudio\.com)$/;

export function isOtherForge(host: string): boolean {
  return OTHER_FORGES.test(host.split(":")[0] as string);
}

/** A host name given by the user (`GH_HOST`, `GITHUB_SERVER_URL`) as a bare host or a URL; else `null`. */
export function parseHostSetting(value: string | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) {
    const url = URL.parse(text);
    if (url?.protocol !== "https:" && url?.protocol !== "http:") return null;
    return url.port === "" ? normalizeHostname(url.hostname) : `${normalizeHostname(url.hostname)}:${url.port}`;
  }
  const host = normalizeHostname(trimChars(text, "/"));
  return /^[a-z0-9.-]+(:[0-9]{1,5})?$/.test(host) ? host : null;
}

/** The host the user pinned with `GH_HOST`, as the gh CLI reads it. */
export function ghHostOverride(env: Env): string | null {
  return parseHostSetting(env.GH_HOST);
}

/** Hosts known to be GitHub without asking: the cloud, `GH_HOST`, the Actions server, gh's logged-in hosts. */
export function knownGitHubHosts(env: Env, ghLoggedInHosts: readonly string[]): (host: string) => boolean {
  const extra = new Set<string>(ghLoggedInHosts.map((h) => h.toLowerCase()));
  for (const setting of [env.GH_HOST, env.GITHUB_SERVER_URL]) {
    const host = parseHostSetting(setting);
    if (host) extra.add(host);
  }
  return (host) => isGitHubCloud(host) || extra.has(host);
}
