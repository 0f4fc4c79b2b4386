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

/**
 * Every other field follows from the id: Bun's target is `bun-<id>`, its runtime package spells
 * arm64 `aarch64`, npm calls Windows `win32`, and Linux packages name their C library.
 */
function target(id: string): Target {
  const [os, arch, variant] = id.split("-") as [Target["os"], Target["arch"], string | undefined];
  const suffix = variant ? `-${variant}` : "";
  return {
    id,
    bun: `bun-${id}` as Bun.Build.CompileTarget,
    os,
    arch,
    runtimePackage: `@oven/bun-${os}-${arch === "arm64" ? "aarch64" : arch}${suffix}`,
    // linux-x64-baseline, for x64 CPUs without AVX2 (before 2013), is a download only, since npm
    // cannot tell CPUs apart and every Linux x64 install would fetch both builds.
    npm:
      variant === "baseline"
        ? null
        : {
            os: os === "windows" ? "win32" : os,
            cpu: arch,
            ...(os === "linux" ? { libc: variant === "musl" ? "musl" : "glibc" } : {}),
          },
  };
}

export const TARGETS: readonly Target[] = [
  "linux-x64",
  "linux-x64-baseline",
  "linux-arm64",
  "linux-x64-musl",
  "linux-arm64-musl",
  "darwin-x64",
  "darwin-arm64",
  "windows-x64",
].map(target);

/** `twig-mcp-linux-x64`, `twig-mcp-windows-x64.exe`: the bare binary's name in dist/. */
export function binaryName(target: Target): string {
  return `twig-mcp-${target.id}${target.os === "windows" ? ".exe" : ""}`;
}

/** The name the binary has inside its archive and once installed. */
export function installedName(target: Target): string {
  return target.os === "windows" ? "twig-mcp.exe" : "twig-mcp";
}

export function archiveName(target: Target): string {
  return `twig-mcp-${target.id}.${target.os === "windows" ? "zip" : "tar.gz"}`;
}

/** The target a machine runs, as `process.platform`/`process.arch` and its C library describe it (this one's by default). */
export function hostTarget(
  platform = process.platform,
  arch: string = process.arch,
  musl = hostIsMusl(),
): Target | null {
  const os = platform === "win32" ? "windows" : platform;
  return TARGETS.find((t) => t.id === `${os}-${arch}${os === "linux" && musl ? "-musl" : ""}`) ?? null;
}

/** glibc reports its version in Node's diagnostic report; musl does not. */
function hostIsMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header !== undefined && report.header.glibcVersionRuntime === undefined;
}

/** Resolves `--target` words: ids, `all`, or `host`. */
export function selectTargets(words: readonly string[]): { targets: Target[]; unknown: string[] } {
  const targets = new Set<Target>();
  const unknown: string[] = [];
  for (const word of words.flatMap((w) => w.split(","))) {
    if (word === "all") {
      for (const target of TARGETS) targets.add(target);
      continue;
    }
    const host = word === "host";
    const target = host ? hostTarget() : TARGETS.find((t) => t.id === word);
    if (target) targets.add(target);
    else unknown.push(host ? `host (${process.platform}-${process.arch})` : word);
  }
  return { targets: [...targets], unknown };
}
