/**
 * Damaged files, through the compiled binary: corrupt, truncated, empty, 50 MB, wrongly typed,
 * BOM-prefixed, symlinked (to a device, in a loop, dangling), FIFO and directory `state.json`,
 * `registry.json`, `.netrc`, `packed-refs`, HEAD and config; symlink loops above a repository; a
 * repository deleted while the server runs; reftable and bare repositories; files the server's
 * user may not read. Each is a correct answer or a structured error with a hint — never a crash,
 * never a hang.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { binaryPath } from "../support/binary.ts";
import { FaultProxy } from "../support/fault-proxy.ts";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { RawServer, type ToolResult } from "./support/raw-server.ts";
import { dropPrivileges, makeWorld, openUp, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const CALL_TIMEOUT_MS = 15_000;
const SECRET = "ghp_fileSECRETvalue0123456789abcdefXYZ";
const MB = 1024 * 1024;

let world: World;
let cases: string;
let server: RawServer;
let github: FaultProxy;
let counter = 0;

/** Starts a server that exposes `roots` as the client's MCP roots. */
async function startWithRoots(roots: string[], extra: { env?: Record<string, string>; wrapper?: string[] } = {}) {
  const started = await RawServer.start({
    cwd: world.root,
    env: { ...world.env, ...extra.env },
    wrapper: extra.wrapper,
  });
  started.onServerRequest = (method) => {
    if (method !== "roots/list") throw new Error("unexpected");
    return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) };
  };
  await started.initialize({ capabilities: { roots: { listChanged: true } } });
  return started;
}

beforeAll(async () => {
  github = await FaultProxy.start(null);
  world = makeWorld({ GITHUB_API_URL: github.url });
  world.repo.git("pack-refs", "--all");
  for (const branch of ["feature/auth", "hotfix/typo"]) world.repo.git("branch", "-f", branch, "main");
  cases = join(world.repo.sandbox, "cases");
  mkdirSync(cases);
  server = await startWithRoots([cases]);
});

afterAll(async () => {
  await server?.close();
  await github?.stop();
  world?.cleanup();
});

/** A fresh copy of the example repository, changed by `change`; returns its path. */
function caseRepo(change: (dir: string) => void): string {
  const dir = join(cases, `case-${++counter}`);
  cpSync(world.root, dir, { recursive: true, verbatimSymlinks: true });
  change(dir);
  return dir;
}

function mkfifo(path: string): void {
  rmSync(path, { force: true, recursive: true });
  const made = Bun.spawnSync(["mkfifo", path]);
  if (made.exitCode !== 0) throw new Error(`mkfifo ${path} failed`);
}

function replaceWith(path: string, kind: Damage): void {
  rmSync(path, { force: true, recursive: true });
  mkdirSync(join(path, ".."), { recursive: true });
  switch (kind.type) {
    case "text":
      writeFileSync(path, kind.text);
      break;
    case "bytes":
      writeFileSync(path, kind.bytes);
      break;
    case "symlink":
      symlinkSync(kind.target, path);
      break;
    case "fifo":
      mkfifo(path);
      break;
    case "directory":
      mkdirSync(path);
      break;
  }
}

type Damage =
  | { type: "text"; text: string }
  | { type: "bytes"; bytes: Uint8Array }
  | { type: "symlink"; target: string }
  | { type: "fifo" }
  | { type: "directory" };

const text = (value: string): Damage => ({ type: "text", text: value });
/** Printable noise with newlines, made once and shared (50 MB is written many times). */
const NOISE = (() => {
  const block = Buffer.from(`${"x7#{[\\".repeat(9)}\n`.repeat(16_384));
  return Buffer.concat(Array.from({ length: Math.ceil((50 * MB) / block.length) }, () => block)).subarray(0, 50 * MB);
})();
const garbage = (size: number): Damage => ({ type: "bytes", bytes: NOISE.subarray(0, size) });

/** Damage every file kind can suffer. */
function commonDamage(valid: string): Array<[string, Damage]> {
  return [
    ["corrupt", text(`${valid.slice(0, 5)}\u0000#!%{{garbage}}\n[[`)],
    ["truncated", text(valid.slice(0, Math.floor(valid.length / 2)))],
    ["empty", text("")],
    ["binary (not UTF-8)", { type: "bytes", bytes: new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]) }],
    ["50 MB of garbage", garbage(50 * MB)],
    ["a secret and nothing else", text(`${SECRET}\n`)],
    ["BOM-prefixed", text(`\uFEFF${valid}`)],
    ["a symlink to /dev/zero", { type: "symlink", target: "/dev/zero" }],
    ["a symlink to itself", { type: "symlink", target: "loop" }],
    ["a dangling symlink", { type: "symlink", target: "/nonexistent/file" }],
    ["a FIFO", { type: "fifo" }],
    ["a directory", { type: "directory" }],
  ];
}

/** Calls a tool with a deadline: a hang fails the test instead of stalling the suite. */
async function call(name: string, args: Record<string, unknown>, on: RawServer = server): Promise<ToolResult> {
  return on.call(name, args, { timeoutMs: CALL_TIMEOUT_MS });
}

/** An answer, or an error with one of `codes`, a message and a hint; never the secret. */
function expectHandled(result: ToolResult, codes: string[]): void {
  expect(result.text).not.toContain(SECRET);
  if (!result.isError) return;
  const error = result.envelope.error;
  expect(codes).toContain(error?.code as string);
  expect(error?.message).toBeString();
  expect(error?.hint ?? "").not.toBe("");
}

function symlinkTarget(path: string, damage: Damage): Damage {
  // "a symlink to itself" is relative to the file's own name.
  return damage.type === "symlink" && damage.target === "loop"
    ? { type: "symlink", target: path.split("/").pop() as string }
    : damage;
}

describe("state.json", () => {
  const valid = twigJson(EXAMPLE_STATE);
  const damages: Array<[string, Damage]> = [
    ...commonDamage(valid),
    ["an array", text("[]")],
    ["a string", text('"state"')],
    ["null", text("null")],
    ["branches as an array", text('{"branches":[]}')],
    ["a PR number as text", text('{"branches":{"a":{"github_pr":"42"}}}')],
    ["dependencies as an object", text('{"dependencies":{"child":"a"}}')],
    ["deeply nested", text(`{"version":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)],
  ];
  test.each(damages)("%s: list_branches answers or says no_twig_state with a hint", async (_name, damage) => {
    const dir = caseRepo((d) => {
      const path = join(d, ".twig", "state.json");
      replaceWith(path, symlinkTarget(path, damage));
    });
    const listed = await call("list_branches", { repo: dir });
    expectHandled(listed, ["no_twig_state"]);
    // The branch name does not depend on the state file.
    const current = await call("get_current_branch", { repo: dir });
    expect(current.structured).toMatchObject({ branch: "feature/auth-ui" });
  });

  test("50 MB of valid state (a large unknown field) is read", async () => {
    const dir = caseRepo((d) => {
      writeFileSync(join(d, ".twig", "state.json"), JSON.stringify({ ...EXAMPLE_STATE, padding: "x".repeat(50 * MB) }));
    });
    const listed = await call("list_branches", { repo: dir });
    expect(listed.isError).toBe(false);
    expect((listed.structured as { branches: unknown[] }).branches).toHaveLength(3);
  });

  test("the parse error never quotes the file", async () => {
    const dir = caseRepo((d) => writeFileSync(join(d, ".twig", "state.json"), SECRET));
    const listed = await call("list_branches", { repo: dir });
    expect(listed.envelope.error?.code).toBe("no_twig_state");
    expect(listed.text).not.toContain("ghp_");
  });
});

describe("packed-refs", () => {
  const oid = "3f786850e387550fdab836ed7e6dc881de23001b";
  const valid = `# pack-refs with: peeled fully-peeled sorted \n${oid} refs/heads/feature/auth\n${oid} refs/heads/main\n`;
  test.each(commonDamage(valid))("%s: get_branch_tree answers or fails with a hint", async (_name, damage) => {
    const dir = caseRepo((d) => {
      const path = join(d, ".git", "packed-refs");
      replaceWith(path, symlinkTarget(path, damage));
    });
    expectHandled(await call("get_branch_tree", { repo: dir }), ["internal", "not_found"]);
    expectHandled(await call("get_branch_stack", { repo: dir, branch: "feature/auth" }), ["internal", "not_found"]);
  });
});

describe("HEAD", () => {
  const damages: Array<[string, Damage]> = [
    ...commonDamage("ref: refs/heads/feature/auth-ui\n"),
    ["a branch that does not exist (unborn)", text("ref: refs/heads/nowhere\n")],
    ["a ref outside refs/heads", text("ref: refs/remotes/origin/gone\n")],
    ["an object id of the wrong length", text("abc123\n")],
  ];
  test.each(damages)("%s: get_current_branch answers or fails with a hint", async (_name, damage) => {
    const dir = caseRepo((d) => {
      const path = join(d, ".git", "HEAD");
      replaceWith(path, symlinkTarget(path, damage));
    });
    expectHandled(await call("get_current_branch", { repo: dir }), ["no_repo", "not_found", "internal"]);
    expectHandled(await call("get_branch_tree", { repo: dir }), ["no_repo", "not_found", "internal"]);
  });

  test("a loop of symbolic refs is an error naming the loop", async () => {
    const dir = caseRepo((d) => {
      writeFileSync(join(d, ".git", "HEAD"), "ref: refs/heads/loop-a\n");
      writeFileSync(join(d, ".git", "refs", "heads", "loop-a"), "ref: refs/heads/loop-b\n");
      writeFileSync(join(d, ".git", "refs", "heads", "loop-b"), "ref: refs/heads/loop-a\n");
    });
    const result = await call("get_current_branch", { repo: dir });
    expectHandled(result, ["internal"]);
    expect(result.envelope.error?.message).toContain("loop");
  });
});

describe("git config and worktree records", () => {
  test.each(commonDamage("[core]\n\trepositoryformatversion = 0\n"))(
    "config %s: answered or refused with a hint",
    async (_name, damage) => {
      const dir = caseRepo((d) => {
        const path = join(d, ".git", "config");
        replaceWith(path, symlinkTarget(path, damage));
      });
      expectHandled(await call("get_current_branch", { repo: dir }), ["internal", "unsupported_repo", "no_repo"]);
    },
  );

  test.each([
    ["a symlink to /dev/zero", { type: "symlink", target: "/dev/zero" }],
    ["a FIFO", { type: "fifo" }],
    ["50 MB", garbage(50 * MB)],
  ] as Array<[string, Damage]>)("a worktree's gitdir file that is %s is skipped", async (_name, damage) => {
    const dir = caseRepo((d) => {
      const admin = join(d, ".git", "worktrees", "wt");
      mkdirSync(admin, { recursive: true });
      writeFileSync(join(admin, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(admin, "commondir"), "../..\n");
      replaceWith(join(admin, "gitdir"), damage);
    });
    const result = await call("get_worktrees", { repo: dir });
    expect(result.isError).toBe(false);
  });
});

describe("registry.json", () => {
  const path = () => join(world.twigDataDir, "registry.json");
  const valid = () => JSON.stringify([{ path: world.root, name: "shop", last_fetch: null }]);
  const damages: Array<[string, Damage]> = [
    ...commonDamage('[{"path":"/x","name":"x"}]'),
    ["an object", text('{"path":"/x"}')],
    ["an entry of the wrong type", text('[{"path":1,"name":"x"}]')],
  ];
  test.each(damages)("%s: list_repositories answers or says invalid_registry with a hint", async (_name, damage) => {
    const next = `${path()}.next`;
    replaceWith(
      next,
      damage.type === "symlink" && damage.target === "loop" ? { type: "symlink", target: "registry.json" } : damage,
    );
    rmSync(path(), { recursive: true, force: true });
    renameSync(next, path());
    try {
      expectHandled(await call("list_repositories", {}), ["invalid_registry"]);
      // Selecting a repository by a path under a client root does not need the registry.
      const caseDir = caseRepo(() => {});
      expect((await call("get_current_branch", { repo: caseDir })).isError).toBe(false);
      expectHandled(await call("get_current_branch", { repo: "shop" }), ["invalid_registry", "invalid_params"]);
    } finally {
      rmSync(path(), { recursive: true, force: true });
      writeFileSync(path(), valid());
    }
  });
});

describe(".netrc", () => {
  const netrc = () => join(world.home, ".netrc");
  const valid = `machine 127.0.0.1 login me password ${SECRET}\n`;
  test.each(commonDamage(valid))(
    "%s: GitHub tools answer or say what is wrong, never the file's content",
    async (_name, damage) => {
      const next = `${netrc()}.next`;
      replaceWith(
        next,
        damage.type === "symlink" && damage.target === "loop" ? { type: "symlink", target: ".netrc" } : damage,
      );
      rmSync(netrc(), { recursive: true, force: true });
      renameSync(next, netrc());
      try {
        const result = await call("get_pull_request", { owner: "octo", repo: "shop", pr_number: 1 });
        expectHandled(result, ["credentials_missing", "not_found"]);
      } finally {
        rmSync(netrc(), { recursive: true, force: true });
      }
    },
  );
});

describe("huge files that parse slowly", () => {
  test("a 50 MB .netrc or git config of plausible lines is refused at once, not tokenized while other calls wait", async () => {
    writeFileSync(join(world.home, ".netrc"), "machine example.com login me password token-value\n".repeat(MB));
    const dir = caseRepo((d) => {
      writeFileSync(join(d, ".git", "config"), '[branch "b"]\n\tremote = origin\n\tmerge = refs/heads/b\n'.repeat(MB));
    });
    try {
      // Refused at once: tokenizing 50 MB while the other calls wait would time the test out.
      const [netrc, config, local] = await Promise.all([
        call("get_pull_request", { owner: "octo", repo: "shop", pr_number: 1 }),
        call("get_current_branch", { repo: dir }),
        call("list_branches", {}),
      ]);
      expect(netrc.envelope.error?.code).toBe("credentials_missing");
      expect(netrc.envelope.error?.message).toContain("limit");
      expectHandled(config, ["internal"]);
      expect(config.envelope.error?.message).toContain("limit");
      expect(local.isError).toBe(false);
    } finally {
      rmSync(join(world.home, ".netrc"), { force: true });
    }
  });
});

describe("repositories", () => {
  test("a symlink loop in the way: --repo through it, repo through it, and discovery past it", async () => {
    const loops = join(world.repo.sandbox, "loops");
    mkdirSync(loops);
    symlinkSync(join(loops, "b"), join(loops, "a"));
    symlinkSync(join(loops, "a"), join(loops, "b"));
    const viaLoop = await RawServer.start({
      cwd: world.root,
      env: world.env,
      args: ["--repo", join(loops, "a", "repo")],
    });
    try {
      await viaLoop.initialize();
      const result = await call("get_current_branch", {}, viaLoop);
      expectHandled(result, ["no_repo"]);
      expect(result.isError).toBe(true);
    } finally {
      expect(await viaLoop.close()).toBe(0);
    }
    expectHandled(await call("get_current_branch", { repo: join(loops, "a", "x") }), ["invalid_params"]);

    // A `.git` that is a symlink loop, above the directory the server starts in.
    const above = join(cases, "loop-above");
    mkdirSync(join(above, "sub"), { recursive: true });
    symlinkSync(".git", join(above, ".git"));
    expectHandled(await call("get_current_branch", { repo: join(above, "sub") }), ["no_repo"]);
  });

  test("a repository deleted while the server runs: structured errors, then it works again when restored", async () => {
    const dir = caseRepo(() => {});
    const backup = `${dir}.bak`;
    const local = await RawServer.start({ cwd: dir, env: world.env });
    try {
      await local.initialize();
      expect((await call("get_current_branch", {}, local)).isError).toBe(false);
      cpSync(dir, backup, { recursive: true });
      rmSync(dir, { recursive: true, force: true });
      for (const tool of [
        "get_current_branch",
        "list_branches",
        "get_branch_tree",
        "get_branch_stack",
        "get_worktrees",
      ]) {
        expectHandled(await call(tool, {}, local), ["no_repo"]);
      }
      const prompt = await local.request("prompts/get", { name: "branch-context", arguments: {} });
      expect(JSON.stringify(prompt.result)).toContain("no_repo: ");
      const resource = await local.request("resources/read", { uri: "twig://repo/tree" });
      expect(resource.error).toMatchObject({ data: { code: "no_repo" } });
      renameSync(backup, dir);
      expect((await call("get_current_branch", {}, local)).structured).toMatchObject({ branch: "feature/auth-ui" });
      expect(local.stdoutProblems()).toEqual([]);
    } finally {
      expect(await local.close()).toBe(0);
    }
  });

  test("a reftable repository is unsupported_repo with a hint, for every local tool", async () => {
    // The layout git 2.45+ writes for `git init --ref-format=reftable`.
    const dir = caseRepo((d) => {
      const git = join(d, ".git");
      rmSync(join(git, "refs"), { recursive: true, force: true });
      rmSync(join(git, "packed-refs"), { force: true });
      mkdirSync(join(git, "refs"));
      writeFileSync(join(git, "refs", "heads"), "this repository uses the reftable format\n");
      mkdirSync(join(git, "reftable"));
      writeFileSync(join(git, "reftable", "tables.list"), "0x000000000001-0x000000000002-8a8b8c8d.ref\n");
      writeFileSync(join(git, "HEAD"), "ref: refs/heads/.invalid\n");
      writeFileSync(
        join(git, "config"),
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\trefStorage = reftable\n",
      );
    });
    for (const tool of ["get_current_branch", "list_branches", "get_branch_tree", "get_worktrees"]) {
      const result = await call(tool, { repo: dir });
      expect(result.envelope.error?.code).toBe("unsupported_repo");
      expect(result.envelope.error?.hint).toContain("refs migrate");
    }
  });

  test("a bare repository: no_repo with a hint, selected by path or with --repo", async () => {
    const bare = join(cases, "bare.git");
    world.repo.gitIn(cases, "clone", "-q", "--bare", world.root, bare);
    const result = await call("get_current_branch", { repo: bare });
    expectHandled(result, ["no_repo"]);
    expect(result.envelope.error?.message).toContain("bare");
    const withRepo = await RawServer.start({ cwd: world.root, env: world.env, args: ["--repo", bare] });
    try {
      await withRepo.initialize();
      const answer = await call("list_branches", {}, withRepo);
      expectHandled(answer, ["no_repo"]);
      expect(answer.isError).toBe(true);
    } finally {
      expect(await withRepo.close()).toBe(0);
    }
  });
});

// Root reads every file whatever its mode, so these cases run the server as nobody; they are
// skipped when that is impossible (not root, no setpriv, or nobody cannot run the binary).
const nobody = dropPrivileges(await binaryPath());

describe.skipIf(nobody === null)("permission denied (run as nobody)", () => {
  test("unreadable state, refs, HEAD, config, registry and .netrc are structured errors naming the problem", async () => {
    const denied = (change: (dir: string) => void) => caseRepo(change);
    const repos = {
      state: denied((d) => chmodSync(join(d, ".twig", "state.json"), 0o000)),
      packed: denied((d) => chmodSync(join(d, ".git", "packed-refs"), 0o000)),
      heads: denied((d) => chmodSync(join(d, ".git", "refs", "heads"), 0o000)),
      head: denied((d) => chmodSync(join(d, ".git", "HEAD"), 0o000)),
      config: denied((d) => chmodSync(join(d, ".git", "config"), 0o000)),
      twigDir: denied((d) => chmodSync(join(d, ".twig"), 0o000)),
    };
    writeFileSync(join(world.home, ".netrc"), `machine 127.0.0.1 login me password ${SECRET}\n`);
    openUp(world.repo.sandbox);
    for (const [name, dir] of Object.entries(repos)) {
      // openUp made everything readable again; take the one permission away once more.
      const target = {
        state: join(dir, ".twig", "state.json"),
        packed: join(dir, ".git", "packed-refs"),
        heads: join(dir, ".git", "refs", "heads"),
        head: join(dir, ".git", "HEAD"),
        config: join(dir, ".git", "config"),
        twigDir: join(dir, ".twig"),
      }[name] as string;
      chmodSync(target, 0o000);
    }
    chmodSync(join(world.home, ".netrc"), 0o000);
    chmodSync(join(world.twigDataDir, "registry.json"), 0o000);
    const asNobody = await startWithRoots([cases], { wrapper: nobody as string[] });
    try {
      const state = await call("list_branches", { repo: repos.state }, asNobody);
      expect(state.envelope.error?.code).toBe("no_twig_state");
      expect(state.envelope.error?.message).toContain("permission denied");
      expectHandled(state, ["no_twig_state"]);

      const twigDir = await call("list_branches", { repo: repos.twigDir }, asNobody);
      expectHandled(twigDir, ["no_twig_state"]);
      expect(twigDir.isError).toBe(true);

      const packed = await call("get_branch_tree", { repo: repos.packed }, asNobody);
      expect(packed.envelope.error?.message).toContain("permission denied");
      expectHandled(packed, ["internal"]);

      const heads = await call("get_branch_tree", { repo: repos.heads }, asNobody);
      expect(heads.envelope.error?.message).toContain("permission denied");
      expectHandled(heads, ["internal"]);

      expectHandled(await call("get_current_branch", { repo: repos.head }, asNobody), ["no_repo", "internal"]);

      const config = await call("get_current_branch", { repo: repos.config }, asNobody);
      expect(config.isError).toBe(true);
      expectHandled(config, ["no_repo", "internal"]);

      const registry = await call("list_repositories", {}, asNobody);
      expect(registry.envelope.error?.message).toContain("permission denied");
      expectHandled(registry, ["invalid_registry"]);

      const netrc = await call("get_pull_request", { owner: "octo", repo: "shop", pr_number: 1 }, asNobody);
      expect(netrc.envelope.error?.code).toBe("credentials_missing");
      expect(netrc.envelope.error?.message).toContain("permission denied");
      expectHandled(netrc, ["credentials_missing"]);
      expect(asNobody.stdoutProblems()).toEqual([]);
    } finally {
      expect(await asNobody.close()).toBe(0);
      chmodSync(join(world.twigDataDir, "registry.json"), 0o644);
      rmSync(join(world.home, ".netrc"), { force: true });
    }
  });
});

describe("afterwards", () => {
  test("the server survived every case, and its stdout stayed JSON-RPC", async () => {
    expect((await call("get_current_branch", { repo: caseRepo(() => {}) })).isError).toBe(false);
    expect(server.stdoutProblems()).toEqual([]);
    expect(server.stderr()).not.toContain(SECRET);
  });
});
