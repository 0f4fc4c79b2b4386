/** One platform twig-mcp ships for. */
export interface Target {
  /** `<os>-<arch>[-variant]`: the suffix of every file made for it. */
  id: string;
  bun: Bun.Build.CompileTarget;
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  /** The npm package with the matching Bun runtime, for building when Bun cannot fetch it itself. */
  runtimePackage: string;
  /** The platform's npm package fields; `null` for a target shipped only as a download. */
  npm: { os: string; cpu: string; libc?: "glibc" | "musl" } | null;
}

export const TARGETS: readonly Target[] = [
  {
    id: "linux-x64",
    bun: "bun-linux-x64",
    os: "linux",
    arch: "x64",
    runtimePackage: "@oven/bun-linux-x64",
    npm: { os: "linux", cpu: "x64", libc: "glibc" },
  },
  // For x64 CPUs without AVX2 (before 2013): a download only, since npm cannot tell CPUs apart
  // and every Linux x64 install would fetch both builds.
  {
    id: "linux-x64-baseline",
    bun: "bun-linux-x64-baseline",
    os: "linux",
    arch: "x64",
    runtimePackage: "@oven/bun-linux-x64-baseline",
    npm: null,
  },
  {
    id: "linux-arm64",
    bun: "bun-linux-arm64",
    os: "linux",
    arch: "arm64",
    runtimePackage: "@oven/bun-linux-aarch64",
    npm: { os: "linux", cpu: "arm64", libc: "glibc" },
  },
  {
    id: "linux-x64-musl",
    bun: "bun-linux-x64-musl",
    os: "linux",
    arch: "x64",
    runtimePackage: "@oven/bun-linux-x64-musl",
    npm: { os: "linux", cpu: "x64", libc: "musl" },
  },
  {
    id: "linux-arm64-musl",
    bun: "bun-linux-arm64-musl",
    os: "linux",
    arch: "arm64",
    runtimePackage: "@oven/bun-linux-aarch64-musl",
    npm: { os: "linux", cpu: "arm64", libc: "musl" },
  },
  {
    id: "darwin-x64",
    bun: "bun-darwin-x64",
    os: "darwin",
    arch: "x64",
    runtimePackage: "@oven/bun-darwin-x64",
    npm: { os: "darwin", cpu: "x64" },
  },
  {
    id: "darwin-arm64",
    bun: "bun-darwin-arm64",
    os: "darwin",
    arch: "arm64",
    runtimePackage: "@oven/bun-darwin-aarch64",
    npm: { os: "darwin", cpu: "arm64" },
  },
  {
    id: "windows-x64",
    bun: "bun-windows-x64",
    os: "windows",
    arch: "x64",
    runtimePackage: "@oven/bun-windows-x64",
    npm: { os: "win32", cpu: "x64" },
  },
];

export function isWindows(target: Target): boolean {
  return target.os === "windows";
}

/** `twig-mcp-linux-x64`, `twig-mcp-windows-x64.exe`: the bare binary's name in dist/. */
export function binaryName(target: Target): string {
  return `twig-mcp-${target.id}${isWindows(target) ? ".exe" : ""}`;
}

/** The name the binary has inside its archive and once installed. */
export function installedName(target: Target): string {
  return isWindows(target) ? "twig-mcp.exe" : "twig-mcp";
}

export function archiveName(target: Target): string {
  return `twig-mcp-${target.id}.${isWindows(target) ? "zip" : "tar.gz"}`;
}

/** The target this machine runs, as `process.platform`/`process.arch` and the C library describe it. */
export function hostTarget(platform: NodeJS.Platform, arch: string, musl: boolean): Target | null {
  const os = platform === "win32" ? "windows" : platform;
  const id = `${os}-${arch}${os === "linux" && musl ? "-musl" : ""}`;
  return TARGETS.find((t) => t.id === id) ?? null;
}

/** glibc reports its version in Node's diagnostic report; musl does not. */
export function hostIsMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header !== undefined && report.header.glibcVersionRuntime === undefined;
}

/** Resolves `--target` words: ids, `all`, or `host`. */
export function selectTargets(words: readonly string[]): { targets: Target[]; unknown: string[] } {
  const targets: Target[] = [];
  const unknown: string[] = [];
  const add = (target: Target) => {
    if (!targets.includes(target)) targets.push(target);
  };
  for (const word of words.flatMap((w) => w.split(","))) {
    if (word === "all") TARGETS.forEach(add);
    else if (word === "host") {
      const host = hostTarget(process.platform, process.arch, hostIsMusl());
      if (host) add(host);
      else unknown.push(`host (${process.platform}-${process.arch})`);
    } else {
      const target = TARGETS.find((t) => t.id === word);
      if (target) add(target);
      else unknown.push(word);
    }
  }
  return { targets, unknown };
}
