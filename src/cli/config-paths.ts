import { posix, win32 } from "node:path";
import type { Context } from "../core/context.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ClientName, ConfigScope } from "./args.ts";
import type { Format } from "./config-merge.ts";

/** `serversKey`: the object (JSON) or table (TOML) holding the servers; `projectFile`: for `--scope project`. */
type ClientSpec = { title: string; format: Format; serversKey: string; projectFile?: string };

export const CLIENT_SPECS: Record<ClientName, ClientSpec> = {
  "claude-desktop": { title: "Claude Desktop", format: "json", serversKey: "mcpServers" },
  "claude-code": { title: "Claude Code", format: "json", serversKey: "mcpServers", projectFile: ".mcp.json" },
  cursor: { title: "Cursor", format: "json", serversKey: "mcpServers", projectFile: ".cursor/mcp.json" },
  codex: { title: "Codex", format: "toml", serversKey: "mcp_servers" },
  vscode: { title: "VS Code", format: "json", serversKey: "servers", projectFile: ".vscode/mcp.json" },
};

/** `projectRoot`: the repository's working tree, for project-scoped files; `null` outside a repository. */
export type Locations = Pick<Context, "env" | "platform" | "home"> & { projectRoot: string | null };

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
