import { describe, expect, test } from "bun:test";
import { MAX_PATTERN_CHARS, wildmatch } from "../../src/git/wildmatch.ts";

describe("wildmatch with WM_PATHNAME (includeIf patterns)", () => {
  const cases: Array<[pattern: string, text: string, matches: boolean]> = [
    ["**/work/**", "/home/a/work/repo/.git", true],
    ["/home/a/work/**", "/home/a/work/repo/.git", true],
    ["/home/a/work/**", "/home/a/workx/repo/.git", false],
    ["/home/*/work/**", "/home/a/work/r/.git", true],
    ["/home/*/work/**", "/home/a/b/work/r/.git", false],
    ["**/r/.git", "/x/y/r/.git", true],
    ["**/r/.git", "r/.git", true],
    ["/a/**/b", "/a/b", true],
    ["/a/**/b", "/a/x/y/b", true],
    ["/a/**b", "/a/xb", true],
    ["/a/**b", "/a/x/b", false],
    ["feature/**", "feature/a/b", true],
    ["feature/*", "feature/a/b", false],
    ["fe?ture/[a-c]", "feature/b", true],
    ["fe?ture/[!a-c]", "feature/b", false],
    ["fe?ture/[^a-c]", "feature/d", true],
    ["a?b", "a/b", false],
    ["a[/]b", "a/b", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["**/my-repo/**", "/x/my-repo/.git", true],
    ["a{b}(c)+.x", "a{b}(c)+.x", true],
    ["a{b}(c)+.x", "a{b}(c)+xx", false],
    ["[a-]x", "-x", true],
    ["[]]x", "]x", true],
    ["[unclosed", "[unclosed", true],
  ];
  for (const [pattern, text, matches] of cases) {
    test(`${pattern} ${matches ? "matches" : "does not match"} ${text}`, () => {
      expect(wildmatch(pattern, text)).toBe(matches);
    });
  }

  test("ignoring case only when asked (gitdir/i:)", () => {
    expect(wildmatch("/HOME/**", "/home/x", true)).toBe(true);
    expect(wildmatch("/HOME/**", "/home/x")).toBe(false);
  });

  test("more cases that the step machine must agree with git on", () => {
    expect(wildmatch("**/**/x", "x")).toBe(true);
    expect(wildmatch("**/**/x", "a/b/x")).toBe(true);
    expect(wildmatch("a/**/**/b", "a/b")).toBe(true);
    expect(wildmatch("a/**/b", "a/xb")).toBe(false);
    expect(wildmatch("*", "")).toBe(true);
    expect(wildmatch("a*", "a/")).toBe(false);
    expect(wildmatch("**", "a/b/c")).toBe(true);
    expect(wildmatch("a**", "a/b")).toBe(false);
    expect(wildmatch("[!a]", "/")).toBe(false);
    expect(wildmatch("[A-C]x", "bX", true)).toBe(true);
    expect(wildmatch("f\u00e9*", "f\u00e9e")).toBe(true);
    expect(wildmatch("?", "\u{1F600}")).toBe(true);
  });

  test("a star-heavy pattern against a long name answers instead of backtracking (includeIf onbranch:*a*a*a…b)", () => {
    const pattern = `${"*a".repeat(40)}b`;
    const name = "a".repeat(4000);
    expect(wildmatch(pattern, name)).toBe(false);
    expect(wildmatch(pattern, `${name}b`)).toBe(true);
    const dirs = `${"**/".repeat(200)}x`;
    expect(wildmatch(dirs, `${"d/".repeat(2000)}y`)).toBe(false);
  });

  test("a pattern over the length belt never matches", () => {
    expect(wildmatch("a".repeat(MAX_PATTERN_CHARS), "a".repeat(MAX_PATTERN_CHARS))).toBe(true);
    expect(wildmatch("*".repeat(MAX_PATTERN_CHARS + 1), "a")).toBe(false);
  });
});
