import { CachedFileReader } from "./fs/cached-file.ts";
import type { Logger } from "./log.ts";
import { silentLogger } from "./log.ts";
import type { RepoSelector } from "./repo-selection.ts";
import type { Result } from "./result.ts";
import type { TwigDirs } from "./twig/dirs.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Everything the outside world gives the server, gathered once at start-up so that every module
 * below takes it as a value (tests build one by hand instead of mutating globals).
 */
export interface Context {
  env: Env;
  platform: NodeJS.Platform;
  /** Home directory as twig computes it (§1.1); `.netrc` lives here. */
  home: string;
  dirs: TwigDirs;
  cwd: string;
  /**
   * The repository of this call (its working-tree root), or why there is none: the default
   * repository, or the one a `repo` argument selected. The server still starts without one.
   */
  repo: Result<string>;
  /** Chooses the repository for a call; absent in contexts built for a single repository. */
  repos?: RepoSelector;
  files: CachedFileReader;
  log: Logger;
  fetch: typeof fetch;
  now: () => Date;
  /** Per-process memo for lazily built clients (GitHub, Jira); keyed by module. */
  memo: Map<string, unknown>;
}

export function createTestContext(overrides: Partial<Context> & Pick<Context, "home" | "dirs" | "repo">): Context {
  return {
    env: {},
    platform: "linux",
    cwd: process.cwd(),
    files: new CachedFileReader(),
    log: silentLogger,
    fetch: globalThis.fetch,
    now: () => new Date(),
    memo: new Map(),
    ...overrides,
  };
}
