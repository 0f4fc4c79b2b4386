import { describe, expect, test } from "bun:test";
import { type ExistingEntry, serverArgsOf, updateEntry } from "../../src/cli/config-entry-update.ts";
import { readServerEntry } from "../../src/cli/config-merge.ts";

const ours = { command: "/opt/homebrew/bin/twig-mcp", args: [] };
const entry = (command: string, args: unknown[], env: Record<string, unknown> = {}, otherKeys: string[] = []) =>
  ({ command, args, env, otherKeys }) satisfies ExistingEntry;

describe("updateEntry", () => {
  test("a new entry gets the launcher and the given args, with nothing to report", () => {
    expect(updateEntry(null, ours, ["--repo", "/r"], false)).toEqual({
      launch: { command: ours.command, args: ["--repo", "/r"] },
      env: null,
      notes: [],
    });
    expect(updateEntry(null, ours, null, false)).toEqual({ launch: ours, env: null, notes: [] });
  });

  test("no flags given: the server args after a launcher's own args are kept", () => {
    const existing = entry("bunx", ["twig-mcp", "--repo", "/src/shop", "--disable=jira"]);
    expect(updateEntry(existing, ours, null, false)).toEqual({
      launch: { command: ours.command, args: ["--repo", "/src/shop", "--disable=jira"] },
      env: null,
      notes: [
        `command was bunx twig-mcp, now ${ours.command}`,
        "kept the server arguments already there: --repo /src/shop --disable=jira (pass --repo or --disable to replace them)",
      ],
    });
  });

  test("given flags replace the old ones; the same ones again report nothing", () => {
    const existing = entry(ours.command, ["--repo", "/old"]);
    expect(updateEntry(existing, ours, [], false)).toEqual({
      launch: ours,
      env: null,
      notes: ["server arguments were --repo /old, now none"],
    });
    expect(updateEntry(existing, ours, ["--repo", "/old"], false).notes).toEqual([]);
    expect(updateEntry(entry(ours.command, []), ours, ["--repo", "/my shop"], false).notes).toEqual([
      'server arguments were none, now --repo "/my shop"',
    ]);
  });

  test("env keeps the variables twig-mcp reads; a project file also drops those that route credentials", () => {
    const env = { JIRA_HOST: "acme.atlassian.net", GH_TOKEN: "t", TWIG_MCP_BINARY: "./x", LD_PRELOAD: "./x.so", N: 1 };
    const user = updateEntry(entry(ours.command, [], env, ["cwd"]), ours, null, false);
    expect(user.env).toEqual({ JIRA_HOST: "acme.atlassian.net", GH_TOKEN: "t" });
    expect(user.notes).toEqual([
      "dropped env variables: TWIG_MCP_BINARY LD_PRELOAD N (twig-mcp does not read them)",
      "dropped entry keys: cwd",
    ]);
    // A project file is the clone author's: their token and default repository are not kept either.
    const project = updateEntry(
      entry(ours.command, [], { ...env, TWIG_MCP_REPO: "/x", TWIG_MCP_DISABLE: "jira" }),
      ours,
      null,
      true,
    );
    expect(project.env).toEqual({ TWIG_MCP_DISABLE: "jira" });
    expect(updateEntry(entry(ours.command, [], { BUN_OPTIONS: "-r x" }), ours, null, true).env).toBeNull();
    // A value a dialog would show reversed or hidden is not kept either.
    expect(updateEntry(entry(ours.command, [], { JIRA_EMAIL: "a\u202eb" }), ours, null, false).env).toBeNull();
  });

  test("a project file's --repo is dropped and said; a user's own file keeps it", () => {
    const args = ["--repo", "/home/me/other", "-v"];
    const project = updateEntry(entry(ours.command, args), ours, null, true);
    expect(project.launch.args).toEqual([...ours.args, "-v"]);
    expect(project.notes).toContain(
      "dropped --repo /home/me/other: a project file does not choose the repository (pass --repo to set one)",
    );
    expect(updateEntry(entry(ours.command, args), ours, null, false).launch.args).toEqual([...ours.args, ...args]);
  });

  test("dropped words are shown quoted, control and bidi characters visible", () => {
    const notes = updateEntry(entry(ours.command, ["-v", "\u001b]52;c;x\u0007", "a\u202eb"]), ours, null, false).notes;
    expect(notes.at(-1)).toBe('dropped arguments twig-mcp does not take: "\\u001b]52;c;x\\u0007" "a\\u202eb"');
  });
});

describe("serverArgsOf", () => {
  test("starts at the first flag the server reads", () => {
    expect(serverArgsOf(["/src/twig-mcp/src/main.ts", "-vv", "--repo", "/r"])).toEqual({
      kept: ["-vv", "--repo", "/r"],
      dropped: [],
    });
    expect(serverArgsOf(["-y", "twig-mcp"])).toEqual({ kept: [], dropped: [] });
    expect(serverArgsOf(["--repository", "/r"])).toEqual({ kept: [], dropped: [] });
  });

  test.each([
    [
      ["--repo", "/r", "config", "--write", "--command", "./evil.sh"],
      ["--repo", "/r"],
      ["config", "--write", "--command", "./evil.sh"],
    ],
    [
      ["--disable", "jira", "--disable", "everything"],
      ["--disable", "jira"],
      ["--disable", "everything"],
    ],
    [["--repo", "--command=./x"], [], ["--repo", "--command=./x"]],
    [["--repo"], [], ["--repo"]],
    [
      ["--max-reply-tokens", "4000", "--max-reply-tokens=lots"],
      ["--max-reply-tokens", "4000"],
      ["--max-reply-tokens=lots"],
    ],
    [["-v", "--repo", "/a\nb", 7], ["-v"], ["--repo", "/a\nb", "7"]],
    [["--repo", "/src/\u202eshop"], [], ["--repo", "/src/\u202eshop"]],
  ])("%p: only flags with values the server accepts", (args, kept, dropped) => {
    expect(serverArgsOf(args)).toEqual({ kept, dropped });
  });
});

describe("readServerEntry", () => {
  test("JSONC with a BOM and comments, and TOML", () => {
    const json =
      '\ufeff{ // servers\n "servers": { "twig": { "type": "stdio", "command": "x", "args": ["--repo", "/r"], "cwd": ".", }, },\n}';
    expect(readServerEntry("json", json, "servers", "twig")).toEqual(entry("x", ["--repo", "/r"], {}, ["cwd"]));
    const toml = '[mcp_servers.twig]\ncommand = "y"\nargs = ["-v"]\n[mcp_servers.twig.env]\nA = "b"\n';
    expect(readServerEntry("toml", toml, "mcp_servers", "twig")).toEqual(entry("y", ["-v"], { A: "b" }));
  });

  test("no entry, no command, or no file to read: null", () => {
    expect(readServerEntry("json", "", "servers", "twig")).toBeNull();
    expect(readServerEntry("json", '{"servers":{"twig":{"args":[]}}}', "servers", "twig")).toBeNull();
    expect(readServerEntry("toml", "model = \n", "mcp_servers", "twig")).toBeNull();
  });
});
