/** One platform twig-mcp ships for. */
export type Target = ReturnType<typeof target>;

/** Every field follows from the id, `<os>-<arch>[-variant]`. */
function target(id: string) {
  const [os, arch, variant] = id.split("-") as ["linux" | "darwin" | "windows", "x64" | "arm64", string | undefined];
  const suffix = variant ? `-${variant}` : "";
  const exe = os === "windows" ? ".exe" : "";
  return {
    id,
    binary: `twig-mcp-${id}${exe}`,
    /** The binary's name inside its archive and once installed. */
    installed: `twig-mcp${exe}`,
    archive: `twig-mcp-${id}.${os === "windows" ? "zip" : "tar.gz"}`,
    bundle: `twig-mcp-${id}.mcpb`,
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

/** The target a machine runs (this one's by default). */
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
