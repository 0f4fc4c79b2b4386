import { posix, win32 } from "node:path";
import type { Env, TwigDirs } from "../core/context.ts";

/** Home directory as twig computes it (Windows' Known Folder approximated by `USERPROFILE`, `HOMEDRIVE`+`HOMEPATH`). */
export function homeDir(env: Env, platform: NodeJS.Platform, passwdHome: () => string | null): string | null {
  if (platform === "win32") {
    if (env.USERPROFILE) return env.USERPROFILE;
    if (env.HOMEDRIVE && env.HOMEPATH) return win32.join(env.HOMEDRIVE, env.HOMEPATH);
    return passwdHome();
  }
  return env.HOME || passwdHome();
}

/** twig's config/data/cache directories, as the `directories` crate places them for "eddieland", "twig". */
export function twigDirs(env: Env, platform: NodeJS.Platform, home: string): TwigDirs {
  if (platform === "darwin") {
    const support = posix.join(home, "Library", "Application Support", "eddieland.twig");
    return { configDir: support, dataDir: support, cacheDir: posix.join(home, "Library", "Caches", "eddieland.twig") };
  }
  if (platform === "win32") {
    const roaming = env.APPDATA || win32.join(home, "AppData", "Roaming");
    const local = env.LOCALAPPDATA || win32.join(home, "AppData", "Local");
    return {
      configDir: win32.join(roaming, "twig", "config"),
      dataDir: win32.join(roaming, "twig", "data"),
      cacheDir: win32.join(local, "twig", "cache"),
    };
  }
  // XDG variables count only when set to an absolute path (the `directories` crate's rule).
  const xdg = (name: string, ...fallback: string[]) => {
    const value = env[name];
    return posix.join(value && posix.isAbsolute(value) ? value : posix.join(home, ...fallback), "twig");
  };
  return {
    configDir: xdg("XDG_CONFIG_HOME", ".config"),
    dataDir: xdg("XDG_DATA_HOME", ".local", "share"),
    cacheDir: xdg("XDG_CACHE_HOME", ".cache"),
  };
}

export function registryPath(dirs: TwigDirs, platform: NodeJS.Platform): string {
  return (platform === "win32" ? win32 : posix).join(dirs.dataDir, "registry.json");
}
