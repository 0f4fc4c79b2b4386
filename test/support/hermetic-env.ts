import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway HOME with its own XDG dirs, so no test ever reads the developer's `.netrc`,
 * twig registry or git config. `env` is the complete environment for a spawned server.
 */
export interface HermeticHome {
  home: string;
  env: Record<string, string>;
  /** twig's data dir under this HOME on Linux (`$XDG_DATA_HOME/twig`). */
  twigDataDir: string;
  cleanup(): void;
}

export function makeHermeticHome(extraEnv: Record<string, string> = {}): HermeticHome {
  const home = mkdtempSync(join(tmpdir(), "twig-mcp-home-"));
  return { home, ...prepareHome(home, extraEnv), cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Creates the XDG dirs under `home` and returns the complete server environment for it, plus
 * twig's data dir there. For tests that keep HOME inside a sandbox of their own.
 */
export function prepareHome(
  home: string,
  extraEnv: Record<string, string> = {},
): { env: Record<string, string>; twigDataDir: string } {
  const xdg = {
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  for (const dir of Object.values(xdg)) mkdirSync(dir, { recursive: true });
  return {
    env: {
      HOME: home,
      ...xdg,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...extraEnv,
    },
    twigDataDir: join(xdg.XDG_DATA_HOME, "twig"),
  };
}
