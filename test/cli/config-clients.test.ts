import { describe, expect, test } from "bun:test";
import { renderSnippet } from "../../src/cli/config.ts";
import { configPath } from "../../src/cli/config-paths.ts";
import { shellQuote } from "../../src/cli/config-self-command.ts";

const mac = { env: {}, platform: "darwin" as const, home: "/Users/alice", projectRoot: "/Users/alice/src/shop" };
const linux = { env: {}, platform: "linux" as const, home: "/home/alice", projectRoot: null };
const windows = {
  env: { APPDATA: "C:\\Users\\alice\\AppData\\Roaming" },
  platform: "win32" as const,
  home: "C:\\Users\\alice",
  projectRoot: "C:\\src\\shop",
};

describe("configPath: each client's real file, per platform", () => {
  test.each([
    ["claude-desktop", mac, "/Users/alice/Library/Application Support/Claude/claude_desktop_config.json"],
    ["claude-desktop", linux, "/home/alice/.config/Claude/claude_desktop_config.json"],
    ["claude-desktop", windows, "C:\\Users\\alice\\AppData\\Roaming\\Claude\\claude_desktop_config.json"],
    ["claude-code", linux, "/home/alice/.claude.json"],
    ["cursor", mac, "/Users/alice/.cursor/mcp.json"],
    ["cursor", windows, "C:\\Users\\alice\\.cursor\\mcp.json"],
    ["codex", linux, "/home/alice/.codex/config.toml"],
    ["vscode", mac, "/Users/alice/Library/Application Support/Code/User/mcp.json"],
    ["vscode", linux, "/home/alice/.config/Code/User/mcp.json"],
    ["vscode", windows, "C:\\Users\\alice\\AppData\\Roaming\\Code\\User\\mcp.json"],
  ] as const)("%s user config (%#)", (client, at, path) => {
    expect(configPath(client, "user", at)).toEqual({ ok: true, value: path });
  });

  test("XDG_CONFIG_HOME, CODEX_HOME and CLAUDE_CONFIG_DIR move the files; relative values are ignored", () => {
    const env = { XDG_CONFIG_HOME: "/xdg", CODEX_HOME: "/codex", CLAUDE_CONFIG_DIR: "/claude" };
    expect(configPath("vscode", "user", { ...linux, env })).toEqual({ ok: true, value: "/xdg/Code/User/mcp.json" });
    expect(configPath("codex", "user", { ...linux, env })).toEqual({ ok: true, value: "/codex/config.toml" });
    expect(configPath("claude-code", "user", { ...linux, env })).toEqual({ ok: true, value: "/claude/.claude.json" });
    expect(configPath("claude-desktop", "user", { ...linux, env: { XDG_CONFIG_HOME: "rel" } })).toEqual({
      ok: true,
      value: "/home/alice/.config/Claude/claude_desktop_config.json",
    });
  });

  test("project files sit in the repository", () => {
    expect(configPath("claude-code", "project", mac)).toEqual({ ok: true, value: "/Users/alice/src/shop/.mcp.json" });
    expect(configPath("cursor", "project", mac)).toEqual({ ok: true, value: "/Users/alice/src/shop/.cursor/mcp.json" });
    expect(configPath("vscode", "project", windows)).toEqual({ ok: true, value: "C:\\src\\shop\\.vscode\\mcp.json" });
    expect(configPath("vscode", "project", linux).ok).toBe(false);
  });
});

describe("renderSnippet", () => {
  const launch = { command: "/opt/twig mcp/twig-mcp", args: ["--repo", "/src/it's"] };

  test("Claude Code: the claude mcp add command, quoted for the shell", () => {
    expect(renderSnippet("claude-code", "user", "twig", launch, "linux")).toBe(
      "claude mcp add --scope user twig -- '/opt/twig mcp/twig-mcp' --repo '/src/it'\\''s'\n",
    );
    expect(shellQuote("C:\\Program Files\\twig-mcp.exe", "win32")).toBe('"C:\\Program Files\\twig-mcp.exe"');
  });

  test("JSON clients: the file's shape with our entry", () => {
    expect(JSON.parse(renderSnippet("claude-desktop", "user", "twig", launch, "linux"))).toEqual({
      mcpServers: { twig: { command: "/opt/twig mcp/twig-mcp", args: ["--repo", "/src/it's"] } },
    });
    expect(JSON.parse(renderSnippet("vscode", "user", "tw", launch, "linux"))).toEqual({
      servers: { tw: { type: "stdio", command: "/opt/twig mcp/twig-mcp", args: ["--repo", "/src/it's"] } },
    });
    expect(JSON.parse(renderSnippet("claude-code", "project", "twig", launch, "linux"))).toEqual({
      mcpServers: { twig: { type: "stdio", command: "/opt/twig mcp/twig-mcp", args: ["--repo", "/src/it's"] } },
    });
  });

  test("Codex: a TOML table that Bun's TOML reader reads back", () => {
    const snippet = renderSnippet("codex", "user", "twig", { command: "C:\\bin\\twig-mcp.exe", args: [] }, "win32");
    expect(snippet).toBe('[mcp_servers.twig]\ncommand = "C:\\\\bin\\\\twig-mcp.exe"\nargs = []\n');
    expect(Bun.TOML.parse(snippet)).toEqual({ mcp_servers: { twig: { command: "C:\\bin\\twig-mcp.exe", args: [] } } });
  });
});
