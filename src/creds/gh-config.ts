import { posix, win32 } from "node:path";
import type { Context } from "../core/context.ts";
import { decodeUtf8, type FileRead } from "../fs/cached-file.ts";

/** One host block of the gh CLI's `hosts.yml`. */
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
  return ctx.files.read(ghHostsPath(ctx), "gh-hosts", (bytes) => parseGhHosts(decodeUtf8(bytes) ?? ""), {
    maxBytes: 1024 * 1024,
  });
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
    const entry: GhHostEntry = {};
    for (const key of ["oauth_token", "user"] as const) {
      const value = (block as Record<string, unknown> | null)?.[key];
      if (typeof value === "string" && value !== "") entry[key] = value;
    }
    hosts.set(host.toLowerCase(), entry);
  }
  return hosts;
}
