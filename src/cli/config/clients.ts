import { posix, win32 } from "node:path";
import type { Env } from "../../core/context.ts";
import { err, ok, type Result } from "../../core/result.ts";
import type { ClientName, ConfigScope } from "../args.ts";
import { mergeServerEntry, type ServerEntry } from "./merge.ts";
import { type LaunchCommand, shellQuote } from "./self-command.ts";

/**
 * `serversKey`: the object (JSON) or table prefix (TOML) that holds the servers; `projectFile`: the
 * file in the repository for `--scope project`, for the clients that read one.
 */
export const CLIENT_SPECS: Record<
  ClientName,
  { title: string; format: "json" | "toml"; serversKey: string; projectFile?: string }
> = {
  "claude-desktop": { title: "Claude Desktop", format: "json", serversKey: "mcpServers" },
  "claude-code": { title: "Claude Code", format: "json", serversKey: "mcpServers", projectFile: ".mcp.json" },
  cursor: { title: "Cursor", format: "json", serversKey: "mcpServers", projectFile: ".cursor/mcp.json" },
  codex: { title: "Codex", format: "toml", serversKey: "mcp_servers" },
  vscode: { title: "VS Code", format: "json", serversKey: "servers", projectFile: ".vscode/mcp.json" },
};

/** What to do once the entry is in the client's file: restart, reload, approve. */
export const AFTERWARDS: Record<ClientName, string> = {
  "claude-desktop": "Quit and reopen Claude Desktop to load it.",
  "claude-code":
    "Claude Code asks once before it starts a server from a project's .mcp.json; check with 'claude mcp list'.",
  cursor: "Cursor picks it up under Settings → MCP (toggle the server on if it is off).",
  codex: "Start a new Codex session to load it; check with 'codex mcp list'.",
  vscode: "VS Code offers to start the server from the file (or run 'MCP: List Servers').",
};

interface Locations {
  env: Env;
  platform: NodeJS.Platform;
  home: string;
  /** The repository's working tree, for project-scoped files; `null` outside a repository. */
  projectRoot: string | null;
}

/** The configuration file a client reads for `scope`, at its real per-platform location. */
export function configPath(client: ClientName, scope: ConfigScope, at: Locations): Result<string, string> {
  const path = at.platform === "win32" ? win32 : posix;
  if (scope === "project") {
    if (at.projectRoot === null)
      return err("--scope project needs a repository: run this inside it or pass --repo PATH");
    return ok(path.join(at.projectRoot, CLIENT_SPECS[client].projectFile ?? ""));
  }
  const user: Record<ClientName, () => string> = {
    "claude-desktop": () => path.join(appDataDir(at), "Claude", "claude_desktop_config.json"),
    "claude-code": () => path.join(absolute(at.env.CLAUDE_CONFIG_DIR, at) ?? at.home, ".claude.json"),
    cursor: () => path.join(at.home, ".cursor", "mcp.json"),
    codex: () => path.join(absolute(at.env.CODEX_HOME, at) ?? path.join(at.home, ".codex"), "config.toml"),
    vscode: () => path.join(appDataDir(at), "Code", "User", "mcp.json"),
  };
  return ok(user[client]());
}

/** Where Electron apps keep per-user data: Application Support, %APPDATA%, or the XDG config dir. */
function appDataDir(at: Locations): string {
  if (at.platform === "darwin") return posix.join(at.home, "Library", "Application Support");
  if (at.platform === "win32") return absolute(at.env.APPDATA, at) ?? win32.join(at.home, "AppData", "Roaming");
  return absolute(at.env.XDG_CONFIG_HOME, at) ?? posix.join(at.home, ".config");
}

function absolute(value: string | undefined, at: Locations): string | null {
  if (!value) return null;
  return (at.platform === "win32" ? win32 : posix).isAbsolute(value) ? value : null;
}

/** The server's entry as the client expects it; key order as in each client's documentation. */
export function serverEntry(
  client: ClientName,
  scope: ConfigScope,
  launch: LaunchCommand,
  env: Record<string, string> | null = null,
): ServerEntry {
  const base = { command: launch.command, args: launch.args, ...(env === null ? {} : { env }) };
  if (client === "vscode" || (client === "claude-code" && scope === "project")) return { type: "stdio", ...base };
  return base;
}

/** The exact text to paste: what `--write` puts in an empty file (JSON or TOML), or Claude Code's command. */
export function renderSnippet(
  client: ClientName,
  scope: ConfigScope,
  name: string,
  launch: LaunchCommand,
  platform: NodeJS.Platform,
): string {
  const spec = CLIENT_SPECS[client];
  if (client === "claude-code" && scope === "user") {
    const words = ["claude", "mcp", "add", "--scope", "user", name, "--", launch.command, ...launch.args];
    return `${words.map((word) => shellQuote(word, platform)).join(" ")}\n`;
  }
  const text = mergeServerEntry(spec.format, "", spec.serversKey, name, serverEntry(client, scope, launch));
  // An empty file always takes the entry.
  return text.ok ? text.value : "";
}
