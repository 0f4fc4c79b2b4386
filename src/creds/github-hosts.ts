import { posix, win32 } from "node:path";
import type { Context, Env } from "../core/context.ts";
import { trimChars } from "../core/plain-text.ts";
import { decodeUtf8, type FileRead } from "../fs/cached-file.ts";

export const GITHUB_COM = "github.com";

/** Lowercased, without a trailing root dot, and GitHub's other git endpoints folded onto `github.com`. */
export function normalizeHostname(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "ssh.github.com" || host === "www.github.com" ? GITHUB_COM : host;
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

/** Hosts known to be GitHub without asking: the cloud, `GH_HOST`, the Actions server, gh's logged-in hosts. */
export function knownGitHubHosts(env: Env, ghLoggedInHosts: readonly string[]): (host: string) => boolean {
  const settings = [env.GH_HOST, env.GITHUB_SERVER_URL].map(parseHostSetting);
  const extra = new Set([...ghLoggedInHosts.map((h) => h.toLowerCase()), ...settings]);
  return (host) => isGitHubCloud(host) || extra.has(host);
}

type GhHostEntry = { oauth_token?: string; user?: string };

type Ctx = Pick<Context, "env" | "platform" | "home">;

/** The gh CLI's config directory, by gh's own rule. */
export function ghConfigDir({ env, platform, home }: Ctx): string {
  const path = platform === "win32" ? win32 : posix;
  if (env.GH_CONFIG_DIR) return env.GH_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "gh");
  if (platform === "win32" && env.APPDATA) return win32.join(env.APPDATA, "GitHub CLI");
  return path.join(home, ".config", "gh");
}

export function ghHostsPath(ctx: Ctx): string {
  return (ctx.platform === "win32" ? win32 : posix).join(ghConfigDir(ctx), "hosts.yml");
}

/** Reads `hosts.yml` (cached by mtime); a missing or unreadable file reads as no hosts. */
export function readGhHosts(ctx: Ctx & Pick<Context, "files">): Promise<FileRead<Map<string, GhHostEntry>>> {
  // gh writes a few lines per host; a bound keeps a huge file from stalling the server while parsed.
  const parse = (bytes: Uint8Array) => parseGhHosts(decodeUtf8(bytes) ?? "");
  return ctx.files.read(ghHostsPath(ctx), "gh-hosts", parse, { maxBytes: 1024 * 1024 });
}

/** Hosts (lowercased) of gh's `hosts.yml` with their string `oauth_token` and `user`; not YAML is no hosts. */
export function parseGhHosts(text: string): Map<string, GhHostEntry> {
  const hosts = new Map<string, GhHostEntry>();
  let doc: unknown;
  try {
    doc = Bun.YAML.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return hosts;
  }
  if (typeof doc !== "object" || doc === null) return hosts;
  for (const [host, block] of Object.entries(doc)) {
    const fields = Object.entries(block ?? {}).filter(
      ([key, value]) => (key === "oauth_token" || key === "user") && typeof value === "string" && value !== "",
    );
    hosts.set(host.toLowerCase(), Object.fromEntries(fields));
  }
  return hosts;
}
