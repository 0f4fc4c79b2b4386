import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Result } from "../core/result.ts";
import { type ArchiveEntry, tarGz, zip } from "./archive.ts";
import { renderChecksums, sha256 } from "./checksums.ts";
import { HOMEBREW_SLOTS, type HomebrewSlot, renderFormula } from "./homebrew.ts";
import { type BundleInfo, bundle, bundleName, bundleTargets } from "./mcpb.ts";
import { mainPackage, type PackageInfo, platformPackage } from "./npm.ts";
import { type RegistryInfo, registryEntry, renderRegistryEntry } from "./registry.ts";
import { archiveName, binaryName, installedName, isWindows, TARGETS, type Target } from "./targets.ts";

export interface ReleaseOptions {
  targets: readonly Target[];
  outDir: string;
  info: PackageInfo;
  /** Release download URL with `{version}`, `{tag}` and `{file}` placeholders (for the formula). */
  urlPattern: string;
  /** The formula's `desc`; Homebrew wants it under 80 characters, shorter than package.json's. */
  formulaDescription?: string;
  npm: boolean;
  /** The npm launcher script and README text that go into the `twig-mcp` package. */
  launcher: string;
  readme: string;
  compile: (target: Target, outfile: string) => Promise<Result<void, string>>;
  log: (line: string) => void;
  /** gzip/deflate level; 9 for releases, lower in tests. */
  level?: number;
  /** Time stamped into archive entries. */
  mtime?: Date;
  /** With it, a Claude Desktop bundle (`.mcpb`) for each bundle target built, with this licence text. */
  bundles?: { info: BundleInfo; license: string };
  /** With it, `server.json` for the MCP Registry, with the bundles' checksums. */
  registry?: RegistryInfo;
}

export interface ReleaseResult {
  built: Target[];
  failed: Array<{ target: Target; error: string }>;
  /** Every file written, relative to `outDir`. */
  files: string[];
}

/**
 * Compiles each target, archives it (`.tar.gz`, `.zip` for Windows), bundles it for Claude Desktop
 * (`.mcpb`, with `bundles`), then writes `sha256sums.txt`, `server.json` (with `registry`), the Homebrew formula and (with `npm`) the npm tarballs. Checksums, formula and
 * packages cover every target binary present in `outDir`, so subsets built one after another add
 * up to a full release. A target that cannot be built is reported and the others go on.
 */
export async function buildRelease(options: ReleaseOptions): Promise<ReleaseResult> {
  const { outDir, log } = options;
  const level = options.level ?? 9;
  const mtime = options.mtime ?? new Date();
  mkdirSync(outDir, { recursive: true });
  const result: ReleaseResult = { built: [], failed: [], files: [] };

  for (const target of options.targets) {
    const started = performance.now();
    const outfile = join(outDir, binaryName(target));
    const compiled = await options.compile(target, outfile);
    if (!compiled.ok) {
      result.failed.push({ target, error: compiled.error });
      log(`FAILED ${target.id}: ${compiled.error}`);
      continue;
    }
    const binary = await Bun.file(outfile).bytes();
    const entries: ArchiveEntry[] = [{ name: installedName(target), data: binary, mode: 0o755 }];
    const archive = isWindows(target) ? zip(entries, mtime, level) : tarGz(entries, mtime, level);
    await Bun.write(join(outDir, archiveName(target)), archive);
    result.built.push(target);
    result.files.push(binaryName(target), archiveName(target));
    log(`built ${binaryName(target)} and ${archiveName(target)} in ${Math.round(performance.now() - started)} ms`);
  }

  const present = TARGETS.filter((t) => existsSync(join(outDir, binaryName(t))));
  if (options.bundles) {
    for (const target of bundleTargets().filter((t) => present.includes(t))) {
      const binary = await Bun.file(join(outDir, binaryName(target))).bytes();
      await Bun.write(
        join(outDir, bundleName(target)),
        bundle(options.bundles.info, target, binary, options.bundles.license, mtime, level),
      );
      result.files.push(bundleName(target));
    }
  }
  const sums = new Map<string, string>();
  for (const target of present) {
    for (const name of [binaryName(target), archiveName(target), bundleName(target)]) {
      const path = join(outDir, name);
      if (existsSync(path)) sums.set(name, sha256(await Bun.file(path).bytes()));
    }
  }
  if (sums.size > 0) {
    await Bun.write(join(outDir, "sha256sums.txt"), renderChecksums(sums));
    result.files.push("sha256sums.txt");
  }
  if (options.registry) {
    await Bun.write(join(outDir, "server.json"), renderRegistryEntry(registryEntry(options.registry, sums)));
    result.files.push("server.json");
  }

  const archives: Partial<Record<HomebrewSlot, { file: string; sha256: string }>> = {};
  for (const slot of Object.keys(HOMEBREW_SLOTS) as HomebrewSlot[]) {
    const target = TARGETS.find((t) => t.id === slot) as Target;
    const hex = sums.get(archiveName(target));
    if (hex) archives[slot] = { file: archiveName(target), sha256: hex };
  }
  if (Object.keys(archives).length > 0) {
    const formula = renderFormula({
      version: options.info.version,
      description: options.formulaDescription ?? options.info.description,
      homepage: options.info.homepage ?? "",
      license: options.info.license,
      urlPattern: options.urlPattern,
      archives,
    });
    mkdirSync(join(outDir, "homebrew"), { recursive: true });
    await Bun.write(join(outDir, "homebrew", "twig-mcp.rb"), formula);
    result.files.push("homebrew/twig-mcp.rb");
    const missing = (Object.keys(HOMEBREW_SLOTS) as HomebrewSlot[]).filter((slot) => !archives[slot]);
    if (missing.length > 0) log(`the Homebrew formula has no archive for ${missing.join(", ")} (not built)`);
  }

  if (options.npm) {
    mkdirSync(join(outDir, "npm"), { recursive: true });
    for (const target of present.filter((t) => t.npm !== null)) {
      const tarball = platformPackage(
        options.info,
        target,
        await Bun.file(join(outDir, binaryName(target))).bytes(),
        level,
      );
      await Bun.write(join(outDir, "npm", tarball.file), tarball.bytes);
      result.files.push(`npm/${tarball.file}`);
    }
    const main = mainPackage(options.info, options.launcher, options.readme);
    await Bun.write(join(outDir, "npm", main.file), main.bytes);
    result.files.push(`npm/${main.file}`);
    log(`npm packages in ${join(outDir, "npm")}: publish the platform packages first, then twig-mcp`);
  }
  return result;
}
