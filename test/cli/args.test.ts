import { describe, expect, test } from "bun:test";
import { type DisableGroup, parseArgs } from "../../src/cli/args.ts";

describe("parseArgs", () => {
  test("serving is the default", () => {
    expect(parseArgs([])).toEqual({
      ok: true,
      value: { command: "serve", repo: null, disabled: new Set(), verbosity: 0 },
    });
  });

  test("flags combine", () => {
    const result = parseArgs(["--repo", "/r", "--disable", "github", "--disable=jira", "-vv", "--verbose"]);
    expect(result).toEqual({
      ok: true,
      value: { command: "serve", repo: "/r", disabled: new Set(["github", "jira"]), verbosity: 3 },
    });
    expect(parseArgs(["--repo=/x"]).ok && parseArgs(["--repo=/x"])).toMatchObject({ value: { repo: "/x" } });
  });

  test("help and version win", () => {
    expect(parseArgs(["-v", "--help"])).toEqual({ ok: true, value: { command: "help" } });
    expect(parseArgs(["-V"])).toEqual({ ok: true, value: { command: "version" } });
  });

  test.each([[["--repo"]], [["--disable"]], [["--disable", "github,jira"]], [["--nope"]], [["serve"]], [["-x"]]])(
    "%p is a usage error",
    (argv) => {
      const result = parseArgs(argv);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message.length).toBeGreaterThan(10);
    },
  );
});

describe("subcommands", () => {
  const common = { repo: null, disabled: new Set<DisableGroup>(), verbosity: 0 };

  test("each command with its flags; common flags go before or after it", () => {
    expect(parseArgs(["tools", "--json"])).toEqual({ ok: true, value: { command: "tools", ...common, json: true } });
    expect(parseArgs(["--repo", "/r", "-v", "tools", "--disable", "jira"])).toEqual({
      ok: true,
      value: { command: "tools", repo: "/r", disabled: new Set(["jira"]), verbosity: 1, json: false },
    });
    expect(parseArgs(["call", "get_branch_stack", "branch=main", "--json", "--repo=/x"])).toEqual({
      ok: true,
      value: { command: "call", ...common, repo: "/x", tool: "get_branch_stack", args: ["branch=main"], json: true },
    });
    expect(parseArgs(["call", "t", "--", "--not-a-flag=1"])).toMatchObject({ value: { args: ["--not-a-flag=1"] } });
    expect(parseArgs(["doctor", "--online", "--json"])).toEqual({
      ok: true,
      value: { command: "doctor", ...common, online: true, json: true },
    });
    expect(
      parseArgs(["config", "vscode", "--write", "--scope", "project", "--name=tw", "--command", "twig-mcp"]),
    ).toEqual({
      ok: true,
      value: {
        command: "config",
        ...common,
        client: "vscode",
        write: true,
        scope: "project",
        name: "tw",
        commandPath: "twig-mcp",
        file: null,
      },
    });
  });

  test("demo, with --keep", () => {
    expect(parseArgs(["demo"])).toEqual({ ok: true, value: { command: "demo", ...common, keep: false } });
    expect(parseArgs(["demo", "--keep", "-v"])).toEqual({
      ok: true,
      value: { command: "demo", ...common, verbosity: 1, keep: true },
    });
    expect(parseArgs(["demo", "--help"])).toEqual({ ok: true, value: { command: "help", topic: "demo" } });
  });

  test("--help after a command, and `help <command>`, ask for that command's help", () => {
    expect(parseArgs(["doctor", "--help"])).toEqual({ ok: true, value: { command: "help", topic: "doctor" } });
    expect(parseArgs(["config", "-h", "nonsense"])).toEqual({ ok: true, value: { command: "help", topic: "config" } });
    expect(parseArgs(["help", "call"])).toEqual({ ok: true, value: { command: "help", topic: "call" } });
    expect(parseArgs(["help"])).toEqual({ ok: true, value: { command: "help" } });
  });

  test.each([
    [["tool"], "Did you mean 'twig-mcp tools'?"],
    [["serve"], "serving MCP on stdio is the default"],
    [["tools", "--jsn"], "Did you mean '--json'?"],
    [["--json"], "--json belongs to a command: twig-mcp tools --json"],
    [["--online"], "twig-mcp doctor --online"],
    [["tools", "extra"], "'twig-mcp tools' takes no arguments"],
    [["call"], "twig-mcp call <tool> [json-args]"],
    [["config"], "'twig-mcp config' needs a client: twig-mcp config <claude-desktop|claude-code|cursor|codex|vscode>"],
    [["config", "vscod"], "Did you mean 'vscode'?"],
    [["config", "cursor", "codex"], "takes one client"],
    [["config", "cursor", "--scope", "global"], "--scope takes user or project, got 'global'"],
    [["config", "cursor", "--name", "my server"], "--name must be letters, digits"],
    [["config", "cursor", "--write=yes"], "--write takes no value"],
    [["config", "cursor", "--file"], "--file needs a value: twig-mcp config --file PATH"],
    [["help", "doctr"], "Did you mean 'twig-mcp doctor'?"],
    [["dmeo"], "Did you mean 'twig-mcp demo'?"],
    [["demo", "--repo", "/r"], "'twig-mcp demo' builds its own sample repository and takes no --repo"],
    [["demo", "extra"], "takes no arguments, got 'extra'"],
  ])("%p is a usage error that says what to type", (argv, advice) => {
    const result = parseArgs(argv);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain(advice);
  });
});
