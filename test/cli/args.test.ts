import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../src/cli/args.ts";

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
