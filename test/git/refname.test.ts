import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkBranchName, checkRefnameFormat } from "../../src/git/refname.ts";
import { makeSandbox, runGit, type Sandbox } from "../support/git-repo.ts";

describe("checkBranchName", () => {
  test.each([
    "main",
    "feature/auth",
    "feature/a/b",
    "fix/ünïcødé",
    "日本",
    "UPPER",
    "a-b_c.d",
    "a@b",
    "a.b/c.d",
    "x.lockx",
    "a{b}",
    "a+b=c,d!e",
    "with'quote",
    'with"dquote',
    "percent%20",
    "emoji-🚀",
    "very/deep/nested/branch/name",
  ])("accepts %p", (name) => {
    expect(checkBranchName(name)).toBeNull();
  });

  test.each([
    ["", "is empty"],
    ["../../../etc/passwd", "contains '..'"],
    ["-x", "starts with '-'"],
    ["a..b", "contains '..'"],
    ["a.lock", "ends with '.lock'"],
    ["a.lock/b", "has a path component ending with '.lock'"],
    ["a//b", "contains an empty path component ('//')"],
    ["/a", "starts with '/'"],
    ["a/", "ends with '/'"],
    ["a.", "ends with '.'"],
    ["@", "is '@', which git reads as HEAD"],
    ["HEAD", "is 'HEAD'"],
    ["a@{b", "contains '@{'"],
    ["a\\b", "contains '\\'"],
    ["a\u0000b", "contains a control character"],
    ["a\nb", "contains a control character"],
    ["a\tb", "contains a control character"],
    ["a\u007fb", "contains a control character"],
    ["a b", "contains a space"],
    ["a~b", "contains '~'"],
    ["a^b", "contains '^'"],
    ["a:b", "contains ':'"],
    ["a?b", "contains '?'"],
    ["a*b", "contains '*'"],
    ["a[b", "contains '['"],
    [".hidden", "has a path component starting with '.'"],
    ["a/.b", "has a path component starting with '.'"],
    ["lone\uD800surrogate", "is not valid Unicode"],
  ])("rejects %p (%s)", (name, reason) => {
    expect(checkBranchName(name)).toBe(reason);
  });
});

describe("checkRefnameFormat", () => {
  test("accepts one-level and full names", () => {
    expect(checkRefnameFormat("HEAD")).toBeNull();
    expect(checkRefnameFormat("refs/heads/main")).toBeNull();
    expect(checkRefnameFormat("refs/tags/v1.0")).toBeNull();
  });

  test("rejects malformed names", () => {
    expect(checkRefnameFormat("@")).toBe("is '@'");
    expect(checkRefnameFormat("refs/heads/a..b")).toBe("contains '..'");
    expect(checkRefnameFormat("refs//heads")).toBe("contains an empty path component ('//')");
  });
});

/** Names for the oracle: git decides, the table above only documents the reasons. */
const ORACLE_NAMES = [
  "main",
  "master",
  "feature/auth",
  "feature/a/b/c",
  "fix/ünïcødé",
  "日本",
  "日本/語",
  "emoji-🚀",
  "Ωmega",
  "UPPER/lower",
  "a-b_c.d",
  "a@b",
  "@a",
  "a@",
  "a@{b",
  "@{",
  "{a}",
  "a{",
  "a}",
  "x.lockx",
  "a.lock",
  "a.lock/b",
  "b/a.lock",
  ".lock",
  "a..b",
  "a.b",
  "a.",
  ".a",
  "a/.b",
  "a/b.",
  "a/b./c",
  "../../../etc/passwd",
  "a//b",
  "/a",
  "a/",
  "-x",
  "x-",
  "--",
  "a b",
  "a\tb",
  "a\nb",
  "a\u0001b",
  "a\u007fb",
  "a~b",
  "a^b",
  "a:b",
  "a?b",
  "a*b",
  "a[b",
  "a]b",
  "a\\b",
  "a%b",
  "a'b",
  'a"b',
  "a!b",
  "a#b",
  "a$b",
  "a&b",
  "a(b)",
  "a+b",
  "a,b",
  "a;b",
  "a<b>",
  "a=b",
  "a|b",
  "a`b",
  "HEAD",
  "head",
  "HEAD/x",
  "refs/heads/x",
  "x".repeat(300),
];

describe("checkBranchName agrees with `git check-ref-format --branch`", () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = makeSandbox();
  });
  afterAll(() => sandbox.cleanup());

  test.each(ORACLE_NAMES.map((name) => [JSON.stringify(name), name]))("%s", (_label, name) => {
    // Run outside any repository: inside one, git first expands `@{-1}`-style names.
    const git = runGit(sandbox.dir, ["check-ref-format", "--branch", name], sandbox.dir);
    const gitAccepts = git.exitCode === 0;
    expect(checkBranchName(name) === null).toBe(gitAccepts);
    if (gitAccepts) expect(git.stdout).toBe(`${name}\n`);
  });

  test("`@` alone: git accepts the name, but `@` means HEAD to git, so it is refused here", () => {
    expect(runGit(sandbox.dir, ["check-ref-format", "--branch", "@"], sandbox.dir).exitCode).toBe(0);
    expect(runGit(sandbox.dir, ["check-ref-format", "--branch", "HEAD"], sandbox.dir).exitCode).not.toBe(0);
    expect(checkBranchName("@")).not.toBeNull();
  });
});
