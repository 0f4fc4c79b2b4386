import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Result } from "../src/core/result.ts";
import { sha256Hex } from "../src/core/sha256.ts";
import { entry, tarGz, zip } from "./archive.ts";
import { type FormulaInput, HOMEBREW_SLOTS, renderFormula } from "./homebrew.ts";
import { type BundleInfo, bundle, bundleManifest, bundleTargets, type RegistryInfo, serverJson } from "./mcpb.ts";
import { mainPackage, type PackageInfo, platformPackage } from "./npm.ts";
import { TARGETS, type Target } from "./targets.ts";

export interface ReleaseOptions {
  targets: readonly Target[];
  outDir: string;
  info: PackageInfo;
  urlPattern: string;
  /** The formula's `desc`; Homebrew wants it under 80 characters, shorter than package.json's. */
  formulaDescription?: string;
  npm: boolean;
  launcher: string;
  readme: string;
  compile: (target: Target, outfile: string) => Promise<Result<void, string>>;
  log: (line: string) => void;
  /** gzip/deflate level; 9 for releases, lower in tests. */
  level?: number;
  mtime?: Date;
  /** `validate`: the bundle manifest's problems by the MCPB tooling's own schema (`by` names it). */
  bundles?: { info: BundleInfo; license: string; validate?: { by: string; problems: (manifest: unknown) => string[] } };
  registry?: RegistryInfo;
}

export interface ReleaseResult {
  built: Target[];
  failed: Array<{ target: Target; error: string }>;
  files: string[];
}

/**
 * Compiles and archives each target, then writes bundles, checksums, server.json, the Homebrew formula
 * and npm tarballs for every binary present in `outDir`, so subsets built in turn add up to a release.
 */
export async function buildRelease(options: ReleaseOptions): Promise<ReleaseResult> {
  const { outDir, log, level = 9, mtime = new Date() } = options;
  mkdirSync(outDir, { recursive: true });
  const result: ReleaseResult = { built: [], failed: [], files: [] };
  const write = async (name: string, data: Uint8Array | string) => {
    await Bun.write(join(outDir, name), data);
    result.files.push(name);
  };
  const binaryOf = (target: Target) => Bun.file(join(outDir, target.binary)).bytes();

  for (const target of options.targets) {
    const started = performance.now();
    const compiled = await options.compile(target, join(outDir, target.binary));
    if (!compiled.ok) {
      result.failed.push({ target, error: compiled.error });
      log(`FAILED ${target.id}: ${compiled.error}`);
      continue;
    }
    const entries = [entry(target.installed, await binaryOf(target), 0o755)];
    result.built.push(target);
    result.files.push(target.binary);
    await write(target.archive, target.os === "windows" ? zip(entries, mtime, level) : tarGz(entries, mtime, level));
    log(`built ${target.binary} and ${target.archive} in ${Math.round(performance.now() - started)} ms`);
  }

  const present = TARGETS.filter((t) => existsSync(join(outDir, t.binary)));
  if (options.bundles) {
    const { info, license, validate } = options.bundles;
    const targets = bundleTargets().filter((t) => present.includes(t));
    for (const target of targets) {
      const problems = validate?.problems(bundleManifest(info, target)) ?? [];
      if (problems.length > 0) {
        result.failed.push({ target, error: `${target.bundle}'s manifest.json: ${problems.join("; ")}` });
        log(`FAILED ${target.bundle}: its manifest.json does not pass ${validate?.by}: ${problems.join("; ")}`);
        continue;
      }
      await write(target.bundle, bundle(info, target, await binaryOf(target), license, mtime, level));
    }
    if (validate && targets.length > 0) log(`each .mcpb's manifest.json passes ${validate.by}`);
  }
  const sums = new Map<string, string>();
  for (const target of present) {
    for (const name of [target.binary, target.archive, target.bundle]) {
      const path = join(outDir, name);
      if (existsSync(path)) sums.set(name, sha256Hex(await Bun.file(path).bytes()));
    }
  }
  // sha256sum's format, which `sha256sum -c` checks: `<hex>  <name>` lines, sorted by name.
  const sorted = [...sums].sort(([a], [b]) => (a < b ? -1 : 1));
  if (sums.size > 0) await write("sha256sums.txt", sorted.map(([name, hex]) => `${hex}  ${name}\n`).join(""));
  if (options.registry) await write("server.json", serverJson(options.registry, sums));

  const archives: FormulaInput["archives"] = {};
  for (const slot of HOMEBREW_SLOTS) {
    const file = `twig-mcp-${slot}.tar.gz`;
    const sha256 = sums.get(file);
    if (sha256) archives[slot] = { file, sha256 };
  }
  const missing = HOMEBREW_SLOTS.filter((slot) => !(slot in archives));
  if (missing.length < HOMEBREW_SLOTS.length) {
    const { version, description, homepage = "", license } = options.info;
    const { formulaDescription = description, urlPattern } = options;
    await write(
      "homebrew/twig-mcp.rb",
      renderFormula({ version, description: formulaDescription, homepage, license, urlPattern, archives }),
    );
    if (missing.length > 0) log(`the Homebrew formula has no archive for ${missing.join(", ")} (not built)`);
  }

  if (options.npm) {
    for (const target of present.filter((t) => t.npm !== null)) {
      const tarball = platformPackage(options.info, target, await binaryOf(target), level);
      await write(`npm/${tarball.file}`, tarball.bytes);
    }
    const main = mainPackage(options.info, options.launcher, options.readme);
    await write(`npm/${main.file}`, main.bytes);
    log(`npm packages in ${join(outDir, "npm")}: publish the platform packages first, then twig-mcp`);
  }
  log(listArtifacts(outDir, result.files));
  return result;
}

/** What a run wrote, one file a line with its exact size, so a person sees the release at a glance. */
function listArtifacts(outDir: string, files: readonly string[]): string {
  const rows = files.map((name) => [name, statSync(join(outDir, name)).size] as const);
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  const sizeWidth = Math.max(0, ...rows.map(([, size]) => size.toLocaleString("en-US").length));
  const lines = rows.map(
    ([name, size]) =>
      `  ${name.padEnd(width)}  ${size.toLocaleString("en-US").padStart(sizeWidth)} bytes${size >= 1e6 ? ` (${(size / 1e6).toFixed(1)} MB)` : ""}`,
  );
  return [`wrote ${files.length === 1 ? "1 file" : `${files.length} files`} in ${outDir}:`, ...lines].join("\n");
}
