import { describe, expect, test } from "bun:test";
import { homeDir, registryPath, twigDirs } from "../../src/twig/dirs.ts";

describe("twigDirs", () => {
  test("Linux uses XDG variables only when absolute", () => {
    expect(twigDirs({}, "linux", "/home/a")).toEqual({
      configDir: "/home/a/.config/twig",
      dataDir: "/home/a/.local/share/twig",
      cacheDir: "/home/a/.cache/twig",
    });
    expect(
      twigDirs({ XDG_CONFIG_HOME: "/x/cfg", XDG_DATA_HOME: "/x/data", XDG_CACHE_HOME: "/x/cache" }, "linux", "/home/a"),
    ).toEqual({ configDir: "/x/cfg/twig", dataDir: "/x/data/twig", cacheDir: "/x/cache/twig" });
    expect(twigDirs({ XDG_CONFIG_HOME: "relative/cfg", XDG_DATA_HOME: "" }, "freebsd", "/home/a")).toEqual({
      configDir: "/home/a/.config/twig",
      dataDir: "/home/a/.local/share/twig",
      cacheDir: "/home/a/.cache/twig",
    });
  });

  test("macOS ignores XDG and shares config and data", () => {
    const dirs = twigDirs({ XDG_CONFIG_HOME: "/x/cfg", XDG_DATA_HOME: "/x/data" }, "darwin", "/Users/a");
    expect(dirs).toEqual({
      configDir: "/Users/a/Library/Application Support/eddieland.twig",
      dataDir: "/Users/a/Library/Application Support/eddieland.twig",
      cacheDir: "/Users/a/Library/Caches/eddieland.twig",
    });
    expect(registryPath(dirs, "darwin")).toBe("/Users/a/Library/Application Support/eddieland.twig/registry.json");
  });

  test("Windows uses roaming and local app data", () => {
    const env = { APPDATA: "C:\\Users\\a\\AppData\\Roaming", LOCALAPPDATA: "C:\\Users\\a\\AppData\\Local" };
    const dirs = twigDirs(env, "win32", "C:\\Users\\a");
    expect(dirs).toEqual({
      configDir: "C:\\Users\\a\\AppData\\Roaming\\twig\\config",
      dataDir: "C:\\Users\\a\\AppData\\Roaming\\twig\\data",
      cacheDir: "C:\\Users\\a\\AppData\\Local\\twig\\cache",
    });
    expect(registryPath(dirs, "win32")).toBe("C:\\Users\\a\\AppData\\Roaming\\twig\\data\\registry.json");
    expect(twigDirs({}, "win32", "C:\\Users\\b").dataDir).toBe("C:\\Users\\b\\AppData\\Roaming\\twig\\data");
  });
});

describe("homeDir", () => {
  const passwd = () => "/from/passwd";
  test("Unix prefers a non-empty HOME, else the passwd entry", () => {
    expect(homeDir({ HOME: "/h" }, "linux", passwd)).toBe("/h");
    expect(homeDir({ HOME: "" }, "linux", passwd)).toBe("/from/passwd");
    expect(homeDir({}, "darwin", () => null)).toBeNull();
  });
  test("Windows uses the profile directory, not HOME", () => {
    expect(homeDir({ HOME: "/h", USERPROFILE: "C:\\Users\\a" }, "win32", passwd)).toBe("C:\\Users\\a");
    expect(homeDir({ HOMEDRIVE: "D:", HOMEPATH: "\\Users\\b" }, "win32", passwd)).toBe("D:\\Users\\b");
  });
});
