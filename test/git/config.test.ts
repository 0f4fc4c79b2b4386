import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { parseConfigBool, parseGitConfig, readConfigFile, remoteUrls } from "../../src/git/config.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { type GitRepo, makeRepo, makeSandbox, runGit, type Sandbox } from "../support/git-repo.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const entriesOf = (text: string) => parseGitConfig(text).config.entries.map(({ key, value }) => [key, value]);

describe("parseGitConfig syntax", () => {
  test.each([
    ["plain section", "[core]\n\tbare = false\n", [["core.bare", "false"]]],
    ["section and key are lower-cased", "[Core]\n\tBaRe = x\n", [["core.bare", "x"]]],
    ["subsection keeps its case", '[remote "Origin"]\nurl = u\n', [["remote.Origin.url", "u"]]],
    ["subsection escapes", '[a "x\\"y\\\\z\\q"]\nk = v\n', [['a.x"y\\zq.k', "v"]]],
    [
      "subsection with dots and spaces",
      '[url "https://a.b/c d"]\ninsteadOf = x\n',
      [["url.https://a.b/c d.insteadof", "x"]],
    ],
    ["legacy [section.sub] is lower-cased", "[Branch.Main]\nremote = o\n", [["branch.main.remote", "o"]]],
    ["bare key is true", "[core]\n\tbare\n", [["core.bare", "true"]]],
    ["no spaces around =", "[a]\nk=v\n", [["a.k", "v"]]],
    ["empty value", "[a]\nk =\n", [["a.k", ""]]],
    ["keys with digits and dashes", "[a]\nk-1 = v\n", [["a.k-1", "v"]]],
    ["key on the header line", "[a] k = v\n", [["a.k", "v"]]],
    [
      "comments with # and ;",
      "# c\n; c\n[a] # c\nk = v # c\nj = w ; c\n",
      [
        ["a.k", "v"],
        ["a.j", "w"],
      ],
    ],
    ["# and ; inside quotes", '[a]\nk = "v # not ; comment"\n', [["a.k", "v # not ; comment"]]],
    ["partly quoted value", '[a]\nk = one" two "three\n', [["a.k", "one two three"]]],
    ["inner whitespace kept (one space each), outer dropped", "[a]\nk =   x  \t y   \n", [["a.k", "x    y"]]],
    ["quoted outer whitespace kept", '[a]\nk = "  x  "\n', [["a.k", "  x  "]]],
    ["escapes", '[a]\nk = a\\tb\\nc\\bd\\\\e\\"f\n', [["a.k", 'a\tb\nc\bd\\e"f']]],
    ["line continuation", "[a]\nk = one \\\n  two\n", [["a.k", "one   two"]]],
    ["continuation inside quotes", '[a]\nk = "one \\\ntwo"\n', [["a.k", "one two"]]],
    [
      "CRLF line ends",
      "[a]\r\nk = v\r\nj = w\r\n",
      [
        ["a.k", "v"],
        ["a.j", "w"],
      ],
    ],
    ["no final newline", "[a]\nk = v", [["a.k", "v"]]],
    ["byte-order mark", "\uFEFF[a]\nk = v\n", [["a.k", "v"]]],
    [
      "multi-valued keys keep order",
      "[a]\nk = 1\n[b]\nx = y\n[a]\nk = 2\n",
      [
        ["a.k", "1"],
        ["b.x", "y"],
        ["a.k", "2"],
      ],
    ],
    ["key before any section is ignored", "k = v\n[a]\nj = w\n", [["a.j", "w"]]],
    ["non-ASCII values", "[user]\nname = Jürgen 日本\n", [["user.name", "Jürgen 日本"]]],
  ])("%s", (_name, text, expected) => {
    const parsed = parseGitConfig(text);
    expect(parsed.error).toBeNull();
    expect(entriesOf(text)).toEqual(expected);
  });

  test.each([
    ["unknown escape", "[a]\nk = \\q\n", 2],
    ["unclosed quote", '[a]\nk = "v\n', 2],
    ["unclosed section", "[a\nk = v\n", 1],
    ["empty section", "[]\n", 1],
    ["space without subsection", "[a b]\n", 1],
    ["key starting with a digit", "[a]\n1k = v\n", 2],
    ["key without =", "[a]\nk v\n", 2],
  ])("stops at a bad line: %s", (_name, text, line) => {
    const parsed = parseGitConfig(text);
    expect(parsed.error?.line).toBe(line);
  });

  test("entries before a bad line are kept", () => {
    expect(entriesOf("[a]\nk = v\nj = \\q\nl = w\n")).toEqual([["a.k", "v"]]);
  });

  test("get returns the last value, keys normalised", () => {
    const config = parseGitConfig('[a]\nk = 1\nk = 2\n[remote "Up"]\nurl = u\n').config;
    expect(config.get("a.k")).toBe("2");
    expect(config.get("A.K")).toBe("2");
    expect(config.get("REMOTE.Up.URL")).toBe("u");
    expect(config.get("remote.up.url")).toBeUndefined();
    expect(config.get("a.missing")).toBeUndefined();
  });

  test.each([
    ["true", true],
    ["YES", true],
    ["on", true],
    ["1", true],
    ["-3", true],
    ["false", false],
    ["No", false],
    ["off", false],
    ["0", false],
    ["", false],
    ["maybe", null],
    [undefined, null],
  ])("parseConfigBool(%p) = %p", (value, expected) => {
    expect(parseConfigBool(value)).toBe(expected);
  });
});

/** `git config --list -z`: `key\nvalue\0`, or `key\0` for a key without a value (which reads as true). */
function gitListEntries(sandbox: Sandbox, file: string): string[][] {
  const result = runGit(sandbox.dir, ["config", "--file", file, "--list", "-z"], sandbox.dir);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return result.stdout
    .split("\0")
    .filter((item) => item !== "")
    .map((item) => {
      const newline = item.indexOf("\n");
      return newline === -1 ? [item, "true"] : [item.slice(0, newline), item.slice(newline + 1)];
    });
}

describe("parseGitConfig agrees with git config", () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = makeSandbox();
  });
  afterAll(() => sandbox.cleanup());

  test("a hand-written file full of edge cases", () => {
    const text = [
      "# leading comment",
      "[core]",
      "\trepositoryformatversion = 0",
      "\tbare",
      '[Remote "Up Stream"] url = git@example.com:x/y.git ; trailing',
      '\tfetch = "+refs/heads/*:refs/remotes/Up Stream/*"',
      "[branch.Feature]",
      "\tremote = origin",
      '[a "q\\"uote\\\\d"]',
      '\tKey-1 = "quoted # hash"  and   more\\t',
      "\tcont = line one \\",
      "   continued",
      '\tescapes = "\\n\\t\\b\\\\\\""',
      "\tempty =",
      "\tspaces =    ",
      "[b]k=v#c",
      '[url "https://github.com/"]',
      "\tinsteadOf = gh:",
      "\tinsteadOf = github:",
      "[user]",
      "\tname = Jürgen 日本 🚀",
    ].join("\n");
    const file = join(sandbox.dir, "handwritten");
    writeFileSync(file, text);
    expect(entriesOf(text)).toEqual(gitListEntries(sandbox, file));
  });

  test("values written by `git config` read back identically", () => {
    const value = fc.string({ unit: fc.constantFrom(..." \t\n\\\"#;=[]ab c'$x\u00fc\u65e5\b"), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), (values) => {
        const file = join(sandbox.dir, "written");
        writeFileSync(file, "");
        values.forEach((v, i) => {
          const result = runGit(sandbox.dir, ["config", "--file", file, "--add", `s.sub "x".k${i}`, v], sandbox.dir);
          if (result.exitCode !== 0) throw new Error(result.stderr);
        });
        const text = readFileSync(file, "utf8");
        const parsed = parseGitConfig(text);
        expect(parsed.error).toBeNull();
        expect(parsed.config.entries.map(({ key, value: v }) => [key, v])).toEqual(gitListEntries(sandbox, file));
        values.forEach((v, i) => {
          expect(parsed.config.get(`s.sub "x".k${i}`)).toBe(v);
        });
      }),
      { numRuns: 40 },
    );
  });
});

describe("remoteUrls", () => {
  test("remotes in config order with their first url", () => {
    const config = parseGitConfig(
      '[remote "b"]\nfetch = x\n[remote "a"]\nurl = A1\nurl = A2\n[remote "b"]\nurl = B\n[remote "nourl"]\nfetch = y\n[remote "my.fork"]\nurl = F\n',
    ).config;
    expect(remoteUrls(config)).toEqual([
      { name: "b", url: "B" },
      { name: "a", url: "A1" },
      { name: "my.fork", url: "F" },
    ]);
  });

  test("insteadOf: the longest matching prefix wins, ties go to the first base", () => {
    const config = parseGitConfig(
      [
        '[remote "o"]\nurl = gh:team/repo',
        '[remote "p"]\nurl = gh:other',
        '[remote "q"]\nurl = https://unrelated/x',
        '[url "https://short/"]\ninsteadOf = gh:',
        '[url "https://long/"]\ninsteadOf = gh:team/',
        '[url "https://tie/"]\ninsteadOf = gh:',
      ].join("\n"),
    ).config;
    expect(remoteUrls(config)).toEqual([
      { name: "o", url: "https://long/repo" },
      { name: "p", url: "https://short/other" },
      { name: "q", url: "https://unrelated/x" },
    ]);
  });

  test("empty config", () => {
    expect(remoteUrls(parseGitConfig("").config)).toEqual([]);
  });
});

describe("the repository config file and remoteUrls agree with git", () => {
  let repo: GitRepo;
  const files = new CachedFileReader();
  beforeAll(() => {
    repo = makeRepo();
    repo.git("remote", "add", "origin", "gh:acme/shop.git");
    repo.git("remote", "add", "upstream", "https://example.com/a b/#not-a-comment.git");
    repo.git("remote", "add", "Mixed.Case", 'ssh://host/"quoted";path');
    repo.git("remote", "add", "plain", "git@example.com:x/y.git");
    repo.git("config", "url.https://github.com/.insteadOf", "gh:");
    repo.git("config", "--add", "url.https://github.com/acme-mirror/.insteadOf", "gh:acme/");
    repo.git("config", "url.ssh://git@example.com/.insteadOf", "git@example.com:");
  });
  afterAll(() => repo.cleanup());

  test("remote.<name>.url matches `git config --get`", async () => {
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const config = await readConfigFile(join(location.value.commonDir, "config"), files);
    if (!config.ok) throw new Error(config.error.message);
    for (const name of ["origin", "upstream", "Mixed.Case", "plain"]) {
      expect(config.value.get(`remote.${name}.url`)).toBe(repo.git("config", "--get", `remote.${name}.url`));
    }
  });

  test("rewritten urls match `git remote get-url`", async () => {
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const config = await readConfigFile(join(location.value.commonDir, "config"), files);
    if (!config.ok) throw new Error(config.error.message);
    const remotes = remoteUrls(config.value);
    expect(remotes.map((remote) => remote.name)).toEqual(["origin", "upstream", "Mixed.Case", "plain"]);
    expect(remotes.map((remote) => remote.name).sort()).toEqual(repo.git("remote").split("\n").sort());
    for (const remote of remotes) expect(remote.url).toBe(repo.git("remote", "get-url", remote.name));
    expect(remotes.find((remote) => remote.name === "origin")?.url).toBe("https://github.com/acme-mirror/shop.git");
  });

  test("a missing config file is an empty config; a broken one is an error", async () => {
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const missing = await readConfigFile(join(repo.sandbox, "nowhere", "config"), files);
    expect(missing.ok && missing.value.entries).toEqual([]);
    const brokenDir = join(repo.sandbox, "broken");
    mkdirSync(brokenDir);
    writeFileSync(join(brokenDir, "config"), "[core]\n\tbare = \\q\n");
    const broken = await readConfigFile(join(brokenDir, "config"), files);
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error.message).toContain("line 2");
  });
});
