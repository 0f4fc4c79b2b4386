/**
 * Throwaway git repositories for tests, built with the real git CLI.
 *
 *   const sandbox = makeSandbox();          // an empty temp dir (canonical path, symlinks resolved)
 *   const repo = makeRepo();                // `git init -b main` in <sandbox>/repo, no commits yet
 *   const repo = makeRepo({ commit: true }) // ... plus one empty commit on main
 *   const bare = makeRepo({ bare: true })   // `git init --bare`; `repo.root` is the git dir
 *
 *   repo.root                   the repository's canonical root (the work tree, or the bare git dir)
 *   repo.sandbox                the temp dir holding it; put sibling worktrees etc. here
 *   repo.path("a", "b")         join(repo.root, "a", "b")
 *   repo.git("branch", "x")     runs git in repo.root; returns stdout without the final newline,
 *                               throws (with git's stderr) on a non-zero exit
 *   repo.gitIn(dir, ...args)    the same, in another directory
 *   repo.tryGit(...args)        never throws: { exitCode, stdout, stderr } (stdout untrimmed)
 *   repo.write("f.txt", "hi")   writes a file under repo.root, creating parent dirs
 *   repo.commit("msg")          commits everything (`git add -A`, empty allowed); returns the new oid
 *   repo.cleanup()              deletes the sandbox; call it in afterAll
 *   copyRepo(repo)              a copy of the whole sandbox in a new one: build a fixture once per
 *                               file, then give each test a copy it may change
 *
 * Every git call runs with GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1, HOME set to the
 * sandbox, fixed author/committer identity and dates, no inherited GIT_* variables, and
 * GIT_CEILING_DIRECTORIES at the sandbox's parent, so the developer's own git setup never matters.
 * `runGit(cwd, args, home)`, `gitOrThrow(cwd, home, ...args)` and `gitEnv(home)` expose the same
 * for code that has no repo.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE, twigJson } from "./fixtures.ts";

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** Canonical path of the temp dir. */
  dir: string;
  cleanup(): void;
}

export interface GitRepo {
  root: string;
  sandbox: string;
  path(...parts: string[]): string;
  git(...args: string[]): string;
  gitIn(cwd: string, ...args: string[]): string;
  tryGit(...args: string[]): GitResult;
  write(relativePath: string, content: string): void;
  commit(message?: string): string;
  cleanup(): void;
}

export interface RepoOptions {
  bare?: boolean;
  /** Make one empty commit so the default branch exists. */
  commit?: boolean;
  /** Extra `git init` arguments, such as `--object-format=sha256`. */
  initArgs?: string[];
}

export function makeSandbox(): Sandbox {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-git-")));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function gitEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CEILING_DIRECTORIES: dirname(home),
    GIT_AUTHOR_NAME: "Test Author",
    GIT_AUTHOR_EMAIL: "author@example.com",
    GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
    GIT_COMMITTER_NAME: "Test Committer",
    GIT_COMMITTER_EMAIL: "committer@example.com",
    GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
    LC_ALL: "C",
  };
}

export function runGit(cwd: string, args: string[], home: string): GitResult {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv(home), stdout: "pipe", stderr: "pipe" });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** `runGit` that returns trimmed stdout and throws with git's stderr on a non-zero exit. */
export function gitOrThrow(cwd: string, home: string, ...args: string[]): string {
  const result = runGit(cwd, args, home);
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

export function makeRepo(options: RepoOptions = {}): GitRepo {
  const sandbox = makeSandbox();
  const root = join(sandbox.dir, options.bare ? "repo.git" : "repo");
  runGitIn(sandbox.dir, sandbox.dir, [
    "init",
    "-q",
    "-b",
    "main",
    ...(options.bare ? ["--bare"] : []),
    ...(options.initArgs ?? []),
    root,
  ]);
  const repo = repoIn(sandbox, root);
  if (options.commit) repo.commit("initial");
  return repo;
}

/** A copy of `repo`'s sandbox in a new one (not for linked worktrees: git records them by absolute path). */
export function copyRepo(repo: GitRepo): GitRepo {
  const sandbox = makeSandbox();
  cpSync(repo.sandbox, sandbox.dir, { recursive: true });
  return repoIn(sandbox, join(sandbox.dir, relative(repo.sandbox, repo.root)));
}

/** `git args` in `cwd` with `home` as HOME: stdout without its final newline; throws on a non-zero exit. */
function runGitIn(home: string, cwd: string, args: string[]): string {
  const result = runGit(cwd, args, home);
  if (result.exitCode !== 0) {
    throw new Error(`git ${args.join(" ")} (in ${cwd}) exited ${result.exitCode}: ${result.stderr.trim()}`);
  }
  return result.stdout.endsWith("\n") ? result.stdout.slice(0, -1) : result.stdout;
}

function repoIn(sandbox: Sandbox, root: string): GitRepo {
  const run = (cwd: string, args: string[]): string => runGitIn(sandbox.dir, cwd, args);
  return {
    root,
    sandbox: sandbox.dir,
    path: (...parts) => join(root, ...parts),
    git: (...args) => run(root, args),
    gitIn: (cwd, ...args) => run(cwd, args),
    tryGit: (...args) => runGit(root, args, sandbox.dir),
    write(relativePath, content) {
      const target = join(root, relativePath);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    },
    commit(message = "commit") {
      run(root, ["add", "-A"]);
      run(root, ["commit", "-q", "--allow-empty", "-m", message]);
      return run(root, ["rev-parse", "HEAD"]);
    },
    cleanup: sandbox.cleanup,
  };
}

/**
 * twig's worked example (fixtures.ts) as a real repository at `dir`: one commit on main, the other
 * example branches, `.twig/state.json` (`state`, the example's by default; a string is written as
 * is), `checkout` checked out and `origin` added when given. Git runs with `home` as HOME. Returns
 * the canonical path.
 */
export function makeExampleRepo(
  dir: string,
  home: string,
  options: { checkout?: string; origin?: string; state?: unknown } = {},
): string {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => gitOrThrow(dir, home, ...args);
  git("init", "-q", "-b", "main");
  git("commit", "-q", "--allow-empty", "-m", "init");
  for (const branch of EXAMPLE_BRANCHES.slice(1)) git("branch", branch);
  if (options.origin !== undefined) git("remote", "add", "origin", options.origin);
  if (options.checkout !== undefined) git("checkout", "-q", options.checkout);
  const state = options.state ?? EXAMPLE_STATE;
  mkdirSync(join(dir, ".twig"), { recursive: true });
  writeFileSync(join(dir, ".twig", "state.json"), typeof state === "string" ? state : twigJson(state));
  return realpathSync(dir);
}
