import { describe, expect, test } from "bun:test";
import { serverArgsOf, updateEntry } from "../../src/cli/config/entry-update.ts";
import { readServerEntry } from "../../src/cli/config/merge.ts";
import { portableCommand } from "../../src/cli/config/self-command.ts";

const ours = { command: "/opt/homebrew/bin/twig-mcp", args: [] };

describe("updateEntry", () => {
  test("a new entry gets the launcher and the given args, with nothing to report", () => {
    expect(updateEntry(null, ours, ["--repo", "/r"])).toEqual({
      launch: { command: ours.command, args: ["--repo", "/r"] },
      notes: [],
    });
    expect(updateEntry(null, ours, null)).toEqual({ launch: ours, notes: [] });
  });

  test("no flags given: the server args after a launcher's own args are kept", () => {
    const existing = { command: "bunx", args: ["twig-mcp", "--repo", "/src/shop", "--disable=jira"] };
    expect(updateEntry(existing, ours, null)).toEqual({
      launch: { command: ours.command, args: ["--repo", "/src/shop", "--disable=jira"] },
      notes: [
        `command was bunx, now ${ours.command}`,
        "kept the server arguments already there: --repo /src/shop --disable=jira (pass --repo or --disable to replace them)",
      ],
    });
  });

  test("given flags replace the old ones; the same ones again report nothing", () => {
    const existing = { command: ours.command, args: ["--repo", "/old"] };
    expect(updateEntry(existing, ours, [])).toEqual({
      launch: ours,
      notes: ["server arguments were --repo /old, now none"],
    });
    expect(updateEntry(existing, ours, ["--repo", "/old"]).notes).toEqual([]);
    expect(updateEntry({ ...existing, args: [] }, ours, ["--repo", "/my shop"]).notes).toEqual([
      'server arguments were none, now --repo "/my shop"',
    ]);
  });

  test("serverArgsOf starts at the first flag the server reads", () => {
    expect(serverArgsOf(["/src/twig-mcp/src/main.ts", "-vv", "--repo", "/r"])).toEqual(["-vv", "--repo", "/r"]);
    expect(serverArgsOf(["-y", "twig-mcp"])).toEqual([]);
    expect(serverArgsOf(["--repository", "/r"])).toEqual([]);
  });
});

describe("portableCommand", () => {
  const self = { command: "/home/a/.local/bin/twig-mcp", args: [] };
  const on =
    (...programs: string[]) =>
    (program: string) =>
      programs.includes(program);
  test.each([
    [on("twig-mcp", "bun"), self, { command: "twig-mcp", args: [] }],
    [on("bun"), self, { command: "bunx", args: ["twig-mcp"] }],
    [on(), self, { command: "npx", args: ["-y", "twig-mcp"] }],
    [on("bun"), { command: "npx", args: ["-y", "twig-mcp"] }, { command: "npx", args: ["-y", "twig-mcp"] }],
  ])("%#", (onPath, from, expected) => {
    expect(portableCommand(from, onPath)).toEqual(expected);
  });
});

describe("readServerEntry", () => {
  test("JSONC with a BOM and comments, and TOML", () => {
    const json = '\ufeff{ // servers\n "servers": { "twig": { "command": "x", "args": ["--repo", 1, "/r"], }, },\n}';
    expect(readServerEntry("json", json, "servers", "twig")).toEqual({ command: "x", args: ["--repo", "/r"] });
    const toml = '[mcp_servers.twig]\ncommand = "y"\nargs = ["-v"]\n';
    expect(readServerEntry("toml", toml, "mcp_servers", "twig")).toEqual({ command: "y", args: ["-v"] });
  });

  test("no entry, no command, or no file to read: null", () => {
    expect(readServerEntry("json", "", "servers", "twig")).toBeNull();
    expect(readServerEntry("json", '{"servers":{"twig":{"args":[]}}}', "servers", "twig")).toBeNull();
    expect(readServerEntry("toml", "model = \n", "mcp_servers", "twig")).toBeNull();
  });
});
