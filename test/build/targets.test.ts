import { expect, test } from "bun:test";
import { hostTarget, selectTargets, TARGETS } from "../../build/targets.ts";

test("the matrix: eight platforms, files named <os>-<arch>, .exe and .zip for Windows", () => {
  expect(TARGETS.map((t) => t.id)).toEqual([
    "linux-x64",
    "linux-x64-baseline",
    "linux-arm64",
    "linux-x64-musl",
    "linux-arm64-musl",
    "darwin-x64",
    "darwin-arm64",
    "windows-x64",
  ]);
  const windows = TARGETS.find((t) => t.id === "windows-x64");
  const mac = TARGETS.find((t) => t.id === "darwin-arm64");
  expect(windows && [windows.binary, windows.installed, windows.archive]).toEqual([
    "twig-mcp-windows-x64.exe",
    "twig-mcp.exe",
    "twig-mcp-windows-x64.zip",
  ]);
  expect(mac && [mac.binary, mac.installed, mac.archive]).toEqual([
    "twig-mcp-darwin-arm64",
    "twig-mcp",
    "twig-mcp-darwin-arm64.tar.gz",
  ]);
  for (const target of TARGETS) expect(target.bun).toBe(`bun-${target.id}` as typeof target.bun);
});

test("--target takes ids, comma lists, all and host, and reports unknown names", () => {
  expect(selectTargets(["linux-arm64,darwin-arm64", "linux-arm64"]).targets.map((t) => t.id)).toEqual([
    "linux-arm64",
    "darwin-arm64",
  ]);
  expect(selectTargets(["all"]).targets).toHaveLength(8);
  expect(selectTargets(["linux-amd64"]).unknown).toEqual(["linux-amd64"]);
  const host = selectTargets(["host"]).targets[0];
  expect(host?.id).toBe(hostTarget(process.platform, process.arch, host?.id.endsWith("-musl") ?? false)?.id);
});

test("hostTarget maps Node's platform names", () => {
  expect(hostTarget("win32", "x64", false)?.id).toBe("windows-x64");
  expect(hostTarget("linux", "arm64", true)?.id).toBe("linux-arm64-musl");
  expect(hostTarget("darwin", "x64", false)?.id).toBe("darwin-x64");
  expect(hostTarget("freebsd", "x64", false)).toBeNull();
});
