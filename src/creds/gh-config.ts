import { posix, win32 } from "node:path";
import type { Context } from "../core/context.ts";
import { decodeUtf8, type FileRead } from "../fs/cached-file.ts";

/** One host block of the gh CLI's `hosts.yml`. */
export interface GhHostEntry {
  oauth_token?: string;
  user?: string;
}

/**
 * The gh CLI's config directory, by gh's own rule: `$GH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gh`
 * (absolute values only), else `%AppData%\GitHub CLI` on Windows, else `~/.config/gh`.
 */
export function ghConfigDir(ctx: Pick<Context, "env" | "platform" | "home">): string {
  const { env, platform, home } = ctx;
  const path = platform === "win32" ? win32 : posix;
  if (env.GH_CONFIG_DIR) return env.GH_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "gh");
  if (platform === "win32" && env.APPDATA) return win32.join(env.APPDATA, "GitHub CLI");
  return path.join(home, ".config", "gh");
}

export function ghHostsPath(ctx: Pick<Context, "env" | "platform" | "home">): string {
  return (ctx.platform === "win32" ? win32 : posix).join(ghConfigDir(ctx), "hosts.yml");
}

/** Reads `hosts.yml` (cached by mtime); a missing or unreadable file reads as no hosts. */
export async function readGhHosts(
  ctx: Pick<Context, "env" | "platform" | "home" | "files">,
): Promise<FileRead<Map<string, GhHostEntry>>> {
  // gh writes a few lines per host; a bound keeps a huge file from stalling the server while parsed.
  return ctx.files.read(ghHostsPath(ctx), "gh-hosts", (bytes) => parseGhHosts(decodeUtf8(bytes) ?? ""), {
    maxBytes: 1024 * 1024,
  });
}

/**
 * Parses the small YAML subset gh writes to `hosts.yml`:
 *
 * ```yaml
 * github.com:
 *     oauth_token: gho_xxx
 *     user: monalisa
 *     users:
 *         monalisa:
 *             oauth_token: gho_xxx
 * ```
 *
 * Top-level keys are hosts (lowercased); only the scalar keys directly under a host are kept
 * (deeper maps such as `users:` are skipped). Quoted scalars and trailing `# comments` are handled.
 */
export function parseGhHosts(text: string): Map<string, GhHostEntry> {
  const hosts = new Map<string, GhHostEntry>();
  let current: GhHostEntry | null = null;
  let fieldIndent: number | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/\t/g, "    ");
    const content = line.trim();
    if (content === "" || content.startsWith("#") || content === "---") continue;
    const indent = line.length - line.trimStart().length;
    const pair = splitKeyValue(content);
    if (!pair) continue;
    if (indent === 0) {
      current = {};
      fieldIndent = null;
      hosts.set(pair.key.toLowerCase(), current);
      continue;
    }
    if (!current) continue;
    fieldIndent ??= indent;
    if (indent !== fieldIndent || pair.value === "") continue;
    if (pair.key === "oauth_token" || pair.key === "user") current[pair.key] = pair.value;
  }
  return hosts;
}

/** `key: value` or `"key": value`; a plain key ends at the first colon followed by a blank or the end. */
function splitKeyValue(content: string): { key: string; value: string } | null {
  const match = /^(?:(["'])(.*?)\1\s*:(.*)|(?!:(?:\s|$))([\s\S]+?):(?=\s|$)([\s\S]*))$/.exec(content);
  return match && { key: (match[2] ?? match[4])!.trim(), value: parseScalar((match[3] ?? match[5])!.trim()) };
}

function parseScalar(text: string): string {
  if (text.startsWith('"')) {
    // An unclosed quote runs to the end of the line.
    const body = (/^"((?:[^"\\]|\\.?)*)/.exec(text) as RegExpExecArray)[1] as string;
    return body.replace(/\\(["\\/nt])/g, (_, ch: string) => (ch === "n" ? "\n" : ch === "t" ? "\t" : ch));
  }
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')*)'/.exec(text);
    return match ? (match[1] as string).replace(/''/g, "'") : text.slice(1);
  }
  const comment = text.search(/\s#/);
  const value = (comment === -1 ? text : text.slice(0, comment)).trim();
  return value === "~" || value === "null" ? "" : value;
}
