import type { CachedFileReader } from "../fs/cached-file.ts";
import type { Logger } from "./log.ts";
import type { Result } from "./result.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** twig's per-user directories for this platform (src/twig/dirs.ts works them out). */
export type TwigDirs = Record<"configDir" | "dataDir" | "cacheDir", string>;

/** Chooses the repository of a call (src/repo/selection.ts). */
export interface RepoSelector {
  /** Calls that arrive while `loading` runs (the client's roots being fetched) wait for it. */
  waitFor(loading: Promise<unknown>): void;
  setRoots(directories: readonly string[]): Promise<void>;
  /** Resolves a `repo` argument (a twig registry name, an absolute path), or the default once roots are known. */
  select(arg: string | undefined): Promise<Result<string>>;
}

/** Everything the outside world gives the server, gathered once at start-up and passed as a value. */
export interface Context {
  env: Env;
  platform: NodeJS.Platform;
  /** Home directory as twig computes it; `.netrc` lives here. */
  home: string;
  dirs: TwigDirs;
  cwd: string;
  /** The working-tree root of this call's repository, or why there is none. */
  repo: Result<string>;
  /** Chooses the repository for a call; absent in contexts built for a single repository. */
  repos?: RepoSelector;
  files: CachedFileReader;
  log: Logger;
  fetch: typeof fetch;
  now: () => Date;
}
