import { describe, expect, test } from "bun:test";
import { parseArgs, type ServeOptions, withEnvironment } from "../../src/cli/args.ts";

function serveOptions(argv: string[]): ServeOptions {
  const parsed = parseArgs(argv);
  if (!parsed.ok || parsed.value.command !== "serve") throw new Error(`not a serve command: ${argv.join(" ")}`);
  return parsed.value;
}

function configured(argv: string[], env: Record<string, string>) {
  const [options, ignored] = withEnvironment(serveOptions(argv), env);
  return { repo: options.repo, disabled: [...options.disabled].sort(), ...(ignored.length > 0 ? { ignored } : {}) };
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

  test("take the group names in any letter case", () => {
    expect(configured([], { TWIG_MCP_DISABLE: "Jira,GITHUB" })).toEqual({ repo: null, disabled: ["github", "jira"] });
  });

  test("an unknown word is ignored and reported, never an error", () => {
    expect(configured([], { TWIG_MCP_DISABLE: "jira,bitbucket, promts" })).toEqual({
      repo: null,
      disabled: ["jira"],
      ignored: [
        "TWIG_MCP_DISABLE: ignored 'bitbucket'; it takes a comma-separated list of github, jira, prompts, resources",
        "TWIG_MCP_DISABLE: ignored 'promts' (did you mean 'prompts'?); it takes a comma-separated list of github, jira, prompts, resources",
      ],
    });
    const hostile = configured([], { TWIG_MCP_DISABLE: `x\u001b[31m${"y".repeat(60)}` });
    expect(typeof hostile === "object" && hostile.ignored?.[0]).toMatch(/^[\x20-\x7e…]+$/);
  });
});

describe("--disable", () => {
  test("takes the group names in any letter case", () => {
    expect(serveOptions(["--disable", "GitHub", "--disable=JIRA"]).disabled).toEqual(new Set(["github", "jira"]));
  });

  test("an unknown word is a usage error with a did-you-mean (the person who typed it reads it)", () => {
    const parsed = parseArgs(["--disable", "jra"]);
    expect(parsed.ok ? null : parsed.error.message).toBe(
      "--disable takes one of github, jira, prompts, resources (repeat the flag for several), got 'jra'. Did you mean 'jira'?",
    );
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
