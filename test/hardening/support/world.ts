/**
 * One throwaway world for end-to-end hardening tests: a sandbox holding a git repository with
 * twig's example stack (`.twig/state.json`, five branches, `feature/auth-ui` checked out, an
 * `origin` on github.com) and a HOME with twig's registry naming it `shop`. Everything lives under
 * one directory, so a test can snapshot it whole.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE, twigJson } from "../../support/fixtures.ts";
import { type GitRepo, makeRepo } from "../../support/git-repo.ts";
import { prepareHome } from "../../support/hermetic-env.ts";

export interface World {
  repo: GitRepo;
  /** The repository's work tree (canonical). */
  root: string;
  /** HOME for the server, inside the sandbox. */
  home: string;
  twigDataDir: string;
  /** A complete environment for the server: HOME, XDG dirs, PATH, and `extraEnv`. */
  env: Record<string, string>;
  cleanup(): void;
}

export function makeWorld(extraEnv: Record<string, string> = {}): World {
  const repo = makeRepo({ commit: true });
  for (const branch of EXAMPLE_BRANCHES) if (branch !== "main") repo.git("branch", branch);
  repo.git("checkout", "-q", "feature/auth-ui");
  repo.git("remote", "add", "origin", "git@github.com:octo/shop.git");
  repo.write(".twig/state.json", twigJson(EXAMPLE_STATE));
  const home = join(repo.sandbox, "home");
  const { env, twigDataDir } = prepareHome(home, extraEnv);
  mkdirSync(twigDataDir, { recursive: true });
  writeFileSync(
    join(twigDataDir, "registry.json"),
    JSON.stringify([{ path: repo.root, name: "shop", last_fetch: null }]),
  );
  return {
    repo,
    root: repo.root,
    home,
    twigDataDir,
    env,
    cleanup: repo.cleanup,
  };
}

/** Makes a directory tree readable (and directories enterable) by everyone, for tests that drop privileges. */
export function openUp(path: string): void {
  const info = statSync(path);
  chmodSync(path, info.isDirectory() ? 0o755 : (info.mode & 0o111) !== 0 ? 0o755 : 0o644);
  if (!info.isDirectory()) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    openUp(join(path, entry.name));
  }
}

/**
 * The `setpriv` prefix that runs `binary` as nobody — when the tests run as root, setpriv exists
 * and nobody may execute the binary where it lies; otherwise `null` (chmod denies nothing to root).
 */
export function dropPrivileges(binary: string): string[] | null {
  if (process.getuid?.() !== 0) return null;
  const setpriv = Bun.which("setpriv");
  if (!setpriv) return null;
  const prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"];
  const probe = Bun.spawnSync([...prefix, binary, "--version"], { stdout: "ignore", stderr: "ignore" });
  return probe.exitCode === 0 ? prefix : null;
}
