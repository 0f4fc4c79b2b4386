import { describe, expect, test } from "bun:test";
import { parseArgs, type ServeOptions, withEnvironment } from "../../src/cli/args.ts";

function serveOptions(argv: string[]): ServeOptions {
  const parsed = parseArgs(argv);
  if (!parsed.ok || parsed.value.command !== "serve") throw new Error(`not a serve command: ${argv.join(" ")}`);
  return parsed.value;
}

function configured(argv: string[], env: Record<string, string>) {
  const result = withEnvironment(serveOptions(argv), env);
  return result.ok ? { repo: result.value.repo, disabled: [...result.value.disabled].sort() } : result.error.message;
}

describe("TWIG_MCP_REPO and TWIG_MCP_DISABLE", () => {
  test("stand in for --repo and --disable", () => {
    expect(configured([], { TWIG_MCP_REPO: "/src/shop", TWIG_MCP_DISABLE: "jira, prompts" })).toEqual({
      repo: "/src/shop",
      disabled: ["jira", "prompts"],
    });
    expect(configured([], { TWIG_MCP_DISABLE: "github resources" })).toEqual({
      repo: null,
      disabled: ["github", "resources"],
    });
  });

  test("lose to the flags", () => {
    expect(
      configured(["--repo", "/src/other", "--disable", "github"], {
        TWIG_MCP_REPO: "/src/shop",
        TWIG_MCP_DISABLE: "jira",
      }),
    ).toEqual({ repo: "/src/other", disabled: ["github"] });
  });

  test("empty, blank or an unfilled user_config placeholder means not set", () => {
    for (const value of ["", "  ", `\${user_config.repository}`]) {
      expect(configured([], { TWIG_MCP_REPO: value, TWIG_MCP_DISABLE: value })).toEqual({ repo: null, disabled: [] });
    }
    expect(configured([], { TWIG_MCP_DISABLE: " , " })).toEqual({ repo: null, disabled: [] });
  });

  test("an unknown group is a usage error naming the variable and the choices", () => {
    expect(configured([], { TWIG_MCP_DISABLE: "jira,gitlab" })).toBe(
      "TWIG_MCP_DISABLE takes a comma-separated list of github, jira, prompts, resources, got 'gitlab'",
    );
    expect(configured([], { TWIG_MCP_DISABLE: `x\u001b[31m${"y".repeat(60)}` })).toMatch(/^[\x20-\x7e…]+$/);
  });
});

describe("empty --repo and --disable values", () => {
  test("mean not set, as a host's blank setting does", () => {
    expect(serveOptions(["--repo", "", "--disable="])).toMatchObject({ repo: null, disabled: new Set() });
    expect(serveOptions(["--repo=", "--disable", ""])).toMatchObject({ repo: null, disabled: new Set() });
  });

  test("a flag with no value at all is still an error", () => {
    expect(parseArgs(["--repo"]).ok).toBe(false);
    expect(parseArgs(["--disable"]).ok).toBe(false);
  });
});
