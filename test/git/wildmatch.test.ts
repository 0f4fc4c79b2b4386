import { describe, expect, test } from "bun:test";
import { wildmatch } from "../../src/git/wildmatch.ts";

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
});
