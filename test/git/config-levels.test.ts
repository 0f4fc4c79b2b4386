import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../../src/core/context.ts";
import { ok } from "../../src/core/result.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { readEffectiveConfig, remoteUrls, userConfigPaths } from "../../src/git/config.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { gitEnv, makeRepo } from "../support/git-repo.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const HOME = "/home/alice";
const paths = (env: Env, platform: NodeJS.Platform = "linux") => userConfigPaths({ env, home: HOME, platform });

describe("userConfigPaths: the files git reads before the repository's config", () => {
  test("system, then the XDG file, then ~/.gitconfig", () => {
    expect(paths({})).toEqual(["/etc/gitconfig", `${HOME}/.config/git/config`, `${HOME}/.gitconfig`]);
    expect(paths({ XDG_CONFIG_HOME: "/xdg" })).toEqual(["/etc/gitconfig", "/xdg/git/config", `${HOME}/.gitconfig`]);
    expect(paths({ XDG_CONFIG_HOME: "" })[1]).toBe(`${HOME}/.config/git/config`);
  });

  test("GIT_CONFIG_GLOBAL replaces both user files; /dev/null means none", () => {
    expect(paths({ GIT_CONFIG_GLOBAL: "/tmp/g" })).toEqual(["/etc/gitconfig", "/tmp/g"]);
    expect(paths({ GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" })).toEqual([]);
  });

  test("GIT_CONFIG_NOSYSTEM drops the system file when true; GIT_CONFIG_SYSTEM moves it", () => {
    for (const yes of ["1", "true", "yes", "on"])
      expect(paths({ GIT_CONFIG_NOSYSTEM: yes })[0]).not.toBe("/etc/gitconfig");
    for (const no of ["0", "false", "", "maybe"]) expect(paths({ GIT_CONFIG_NOSYSTEM: no })[0]).toBe("/etc/gitconfig");
    expect(paths({ GIT_CONFIG_SYSTEM: "/opt/git/etc/gitconfig" })[0]).toBe("/opt/git/etc/gitconfig");
  });

  test("on Windows the system file is Git for Windows' own", () => {
    expect(paths({ ProgramFiles: "D:\\Apps" }, "win32")[0]).toBe(join("D:\\Apps", "Git", "etc", "gitconfig"));
  });
});

describe("insteadOf rules from every level, as `git remote get-url` applies them", () => {
  const repo = makeRepo({ commit: true });
  afterAll(() => repo.cleanup());
  const home = join(repo.sandbox, "home");
  const xdg = join(home, "xdg");
  const system = join(repo.sandbox, "system-gitconfig");
  mkdirSync(join(xdg, "git"), { recursive: true });
  writeFileSync(
    system,
    '[url "https://system.example/"]\n\tinsteadOf = sys:\n[url "https://tie-system/"]\n\tinsteadOf = tie:\n',
  );
  writeFileSync(join(xdg, "git", "config"), '[url "https://tie-xdg/"]\n\tinsteadOf = tie:\n');
  writeFileSync(
    join(home, ".gitconfig"),
    '[url "https://github.com/"]\n\tinsteadOf = gh:\n[url "https://tie-global/"]\n\tinsteadOf = tie:\n',
  );
  repo.git("remote", "add", "origin", "gh:acme/shop.git");
  repo.git("remote", "add", "team", "gh:acme/team/svc.git");
  repo.git("remote", "add", "sys", "sys:x/y");
  repo.git("remote", "add", "tie", "tie:o/r");
  repo.git("remote", "add", "plain", "https://example.com/a/b.git");
  // A longer prefix in the repository beats the user's shorter one.
  repo.git("config", "url.https://mirror.example/acme-team/.insteadOf", "gh:acme/team/");

  const env: Env = { HOME: home, XDG_CONFIG_HOME: xdg, GIT_CONFIG_SYSTEM: system };

  /** `git remote get-url` with the user's and the system's config in play (the usual test env turns them off). */
  function gitUrl(name: string): string {
    const base = gitEnv(home);
    const { GIT_CONFIG_GLOBAL: _global, GIT_CONFIG_NOSYSTEM: _nosystem, ...rest } = base;
    const result = Bun.spawnSync(["git", "remote", "get-url", name], {
      cwd: repo.root,
      env: { ...rest, XDG_CONFIG_HOME: xdg, GIT_CONFIG_SYSTEM: system },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (result.exitCode !== 0) throw new Error(result.stderr.toString());
    return result.stdout.toString().trim();
  }

  /** The configuration a remote is looked up in, for a server running with `contextEnv`. */
  async function effectiveConfig(contextEnv: Env) {
    const files = new CachedFileReader();
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const dirs = twigDirs(contextEnv, "linux", home);
    const ctx = createTestContext({ env: contextEnv, home, dirs, repo: ok(repo.root), files });
    return readEffectiveConfig(location.value, ctx);
  }

  async function urls(contextEnv: Env) {
    const config = await effectiveConfig(contextEnv);
    if (!config.ok) throw new Error(config.error.message);
    return remoteUrls(config.value);
  }

  test("every remote comes out as git rewrites it", async () => {
    const remotes = await urls(env);
    expect(remotes.map((remote) => remote.name)).toEqual(["origin", "team", "sys", "tie", "plain"]);
    for (const remote of remotes) expect(remote.url).toBe(gitUrl(remote.name));
    expect(remotes.map((remote) => remote.url)).toEqual([
      "https://github.com/acme/shop.git",
      "https://mirror.example/acme-team/svc.git",
      "https://system.example/x/y",
      "https://tie-system/o/r",
      "https://example.com/a/b.git",
    ]);
  });

  test("without the user's and the system's files, only the repository's rules apply", async () => {
    const remotes = await urls({ HOME: home, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" });
    expect(remotes.find((remote) => remote.name === "origin")?.url).toBe("gh:acme/shop.git");
    expect(remotes.find((remote) => remote.name === "team")?.url).toBe("https://mirror.example/acme-team/svc.git");
  });

  test("a broken user config is an error naming the file, as git refuses it too", async () => {
    const broken = join(repo.sandbox, "broken-gitconfig");
    writeFileSync(broken, "[url\n");
    const config = await effectiveConfig({ HOME: home, GIT_CONFIG_GLOBAL: broken, GIT_CONFIG_NOSYSTEM: "1" });
    expect(config.ok).toBe(false);
    if (!config.ok) expect(config.error.message).toContain(broken);
  });
});

describe("include and includeIf, as git follows them", () => {
  const repo = makeRepo({ commit: true });
  afterAll(() => repo.cleanup());
  // HOME is the sandbox, so the repository is ~/repo.
  const home = repo.sandbox;
  const rule = (base: string, prefix: string) => `[url "${base}"]\n\tinsteadOf = ${prefix}\n`;
  mkdirSync(join(home, "inc"), { recursive: true });
  writeFileSync(
    join(home, ".gitconfig"),
    [
      "[include]\n\tpath = inc/plain",
      "[include]\n\tpath = inc/missing",
      '[includeIf "gitdir:~/repo/"]\n\tpath = ~/inc/here',
      '[includeIf "gitdir:/nowhere/"]\n\tpath = ~/inc/elsewhere',
      `[includeIf "gitdir/i:${repo.root.toUpperCase()}/"]\n\tpath = ~/inc/icase`,
      `[includeIf "gitdir:${repo.root.toUpperCase()}/"]\n\tpath = ~/inc/case`,
      '[includeIf "gitdir:repo/.git"]\n\tpath = ~/inc/relative',
      '[includeIf "onbranch:feat/"]\n\tpath = ~/inc/feat',
      '[includeIf "gitdir:~/r?p[a-o]/"]\n\tpath = ~/inc/glob',
      '[includeIf "gitdir:~/{repo}/"]\n\tpath = ~/inc/brace',
      '[includeIf "hasconfig:remote.*.url:https://example.com/**"]\n\tpath = ~/inc/hasconfig',
    ].join("\n"),
  );
  writeFileSync(join(home, "inc", "plain"), `${rule("https://plain.example/", "a:")}[include]\n\tpath = nested\n`);
  writeFileSync(join(home, "inc", "nested"), rule("https://nested.example/", "n:"));
  writeFileSync(join(home, "inc", "here"), rule("https://here.example/", "b:"));
  writeFileSync(join(home, "inc", "elsewhere"), rule("https://elsewhere.example/", "c:"));
  writeFileSync(join(home, "inc", "icase"), rule("https://icase.example/", "d:"));
  writeFileSync(join(home, "inc", "case"), rule("https://case.example/", "d2:"));
  writeFileSync(join(home, "inc", "relative"), rule("https://relative.example/", "r:"));
  writeFileSync(join(home, "inc", "feat"), rule("https://feat.example/", "e:"));
  writeFileSync(join(home, "inc", "hasconfig"), rule("https://hasconfig.example/", "h:"));
  writeFileSync(join(home, "inc", "glob"), rule("https://glob.example/", "g:"));
  writeFileSync(join(home, "inc", "brace"), rule("https://brace.example/", "br:"));
  // The repository's own config includes a file relative to the .git directory.
  writeFileSync(join(repo.root, ".git", "shared.inc"), rule("https://local-include.example/", "l:"));
  repo.git("config", "include.path", "shared.inc");
  for (const [name, url] of [
    ["a", "a:x/1"],
    ["n", "n:x/2"],
    ["b", "b:x/3"],
    ["c", "c:x/4"],
    ["d", "d:x/5"],
    ["d2", "d2:x/6"],
    ["r", "r:x/7"],
    ["e", "e:x/8"],
    ["h", "h:x/9"],
    ["l", "l:x/10"],
    ["g", "g:x/11"],
    ["br", "br:x/12"],
  ]) {
    repo.git("remote", "add", name as string, url as string);
  }
  const env: Env = { HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), GIT_CONFIG_NOSYSTEM: "1" };

  function gitUrls(): string[] {
    const { GIT_CONFIG_GLOBAL: _global, ...rest } = gitEnv(home);
    return ["a", "n", "b", "c", "d", "d2", "r", "e", "h", "l", "g", "br"].map((name) => {
      const result = Bun.spawnSync(["git", "remote", "get-url", name], { cwd: repo.root, env: rest, stdout: "pipe" });
      return result.stdout.toString().trim();
    });
  }

  async function ourUrls(): Promise<string[]> {
    const files = new CachedFileReader();
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const ctx = createTestContext({ env, home, dirs: twigDirs(env, "linux", home), repo: ok(repo.root), files });
    const config = await readEffectiveConfig(location.value, ctx);
    if (!config.ok) throw new Error(config.error.message);
    return remoteUrls(config.value).map((remote) => remote.url);
  }

  test("on main: the same URLs as `git remote get-url`", async () => {
    const expected = gitUrls();
    expect(await ourUrls()).toEqual(expected);
    // Spot checks, so a git that skipped includes could not make this pass vacuously.
    expect(expected).toContain("https://nested.example/x/2");
    expect(expected).toContain("https://icase.example/x/5");
    expect(expected).toContain("e:x/8");
    expect(expected).toContain("https://glob.example/x/11");
    expect(expected).toContain("br:x/12");
  });

  test("on a feat/ branch, onbranch: is not followed (no remote depends on the branch)", async () => {
    repo.git("checkout", "-q", "-b", "feat/x");
    try {
      const expected = gitUrls();
      expect(expected).toContain("https://feat.example/x/8");
      expect(await ourUrls()).toEqual(expected.map((url) => (url === "https://feat.example/x/8" ? "e:x/8" : url)));
    } finally {
      repo.git("checkout", "-q", "main");
    }
  });

  /** The effective config with `global` as the user's only file. */
  async function withGlobal(global: string) {
    const files = new CachedFileReader();
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const globalEnv: Env = { HOME: home, GIT_CONFIG_GLOBAL: global, GIT_CONFIG_NOSYSTEM: "1" };
    const ctx = createTestContext({
      env: globalEnv,
      home,
      dirs: twigDirs(globalEnv, "linux", home),
      repo: ok(repo.root),
      files,
    });
    return readEffectiveConfig(location.value, ctx);
  }

  test("a file included twice in one read is read once, so its entries appear once", async () => {
    writeFileSync(join(home, "inc", "twice"), "[marker]\n\tseen = yes\n");
    const global = join(home, "inc", "includes-twice");
    writeFileSync(global, "[include]\n\tpath = twice\n[include]\n\tpath = twice\n");
    const config = await withGlobal(global);
    if (!config.ok) throw new Error(config.error.message);
    expect(config.value.entries.filter((entry) => entry.key === "marker.seen")).toHaveLength(1);
  });

  test("past 64 included files the read is an error naming the cap", async () => {
    const global = join(home, "inc", "includes-many");
    for (let i = 0; i < 65; i++) writeFileSync(join(home, "inc", `many-${i}`), "");
    writeFileSync(global, Array.from({ length: 65 }, (_, i) => `[include]\n\tpath = many-${i}\n`).join(""));
    const config = await withGlobal(global);
    expect(config.ok).toBe(false);
    if (!config.ok) expect(config.error.message).toContain("more than 64 files");
  });

  test("the repository's config may include files inside the repository only; the user's may include any", async () => {
    const outside = join(home, "inc", "plain");
    repo.git("config", "--add", "include.path", outside);
    try {
      const config = await withGlobal("/dev/null");
      expect(config.ok).toBe(false);
      if (!config.ok) expect(config.error.message).toContain("outside the repository");
    } finally {
      repo.git("config", "--unset", "include.path", outside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    }
    const userIncludes = join(home, "inc", "user-includes-plain");
    writeFileSync(userIncludes, `[include]\n\tpath = ${outside}\n`);
    expect((await withGlobal(userIncludes)).ok).toBe(true);
  });

  test("an include named through a link and `..` is judged where it leads, not by its text", async () => {
    // `<git dir>/out/..` is `home` on disk (the link's parent), while its text says `<git dir>`.
    const gitDir = join(repo.root, ".git");
    symlinkSync(join(home, "inc"), join(gitDir, "out"));
    const through = `${join(gitDir, "out")}/../inc/plain`;
    repo.git("config", "--add", "include.path", through);
    try {
      const config = await withGlobal("/dev/null");
      expect(config.ok).toBe(false);
      if (!config.ok) expect(config.error.message).toContain("outside the repository");
    } finally {
      repo.git("config", "--unset", "include.path", through.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      rmSync(join(gitDir, "out"));
    }
  });

  test("a gitdir: pattern built to backtrack answers, and never holds", async () => {
    const global = join(home, "inc", "stars");
    writeFileSync(global, `[includeIf "gitdir:/${"*a".repeat(2000)}b/"]\n\tpath = ~/inc/plain\n`);
    const config = await withGlobal(global);
    if (!config.ok) throw new Error(config.error.message);
    expect(config.value.entries.some((entry) => entry.value === "a:")).toBe(false);
  });

  test("a config that includes itself is an error, as git refuses it", async () => {
    const loop = join(home, "inc", "loop");
    writeFileSync(loop, "[include]\n\tpath = loop\n");
    const files = new CachedFileReader();
    const location = await discoverRepository(repo.root, files);
    if (!location.ok) throw new Error(location.error.message);
    const loopEnv: Env = { HOME: home, GIT_CONFIG_GLOBAL: loop, GIT_CONFIG_NOSYSTEM: "1" };
    const ctx = createTestContext({
      env: loopEnv,
      home,
      dirs: twigDirs(loopEnv, "linux", home),
      repo: ok(repo.root),
      files,
    });
    const config = await readEffectiveConfig(location.value, ctx);
    expect(config.ok).toBe(false);
    if (!config.ok) expect(config.error.message).toContain("deeper than 10");
  });
});
