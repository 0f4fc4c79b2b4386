import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "../src/core/result.ts";
import type { Target } from "./targets.ts";

/**
 * The Bun runtime for another platform, fetched with `npm pack` as its npm package: Bun's own download
 * knows only its default registry, while npm follows the user's configuration (mirror, proxy, cache).
 */
export async function fetchRuntime(
  target: Target,
  bunVersion: string,
  cacheDir: string,
  /** The npm to run; tests pass a stand-in. */
  npm = "npm",
): Promise<Result<string, string>> {
  const executable = target.os === "windows" ? "bun.exe" : "bun";
  const dir = join(cacheDir, `${target.runtimePackage.replace("/", "+")}@${bunVersion}`);
  const runtime = join(dir, "package", "bin", executable);
  if (existsSync(runtime)) return ok(runtime);

  const spec = `${target.runtimePackage}@${bunVersion}`;
  const scratch = mkdtempSync(join(tmpdir(), "twig-mcp-runtime-"));
  try {
    let packed: Bun.SyncSubprocess<"pipe", "pipe">;
    try {
      packed = Bun.spawnSync([npm, "pack", spec, "--json", "--pack-destination", scratch]);
    } catch (error) {
      return err(`npm is not available to fetch ${spec} (${error instanceof Error ? error.message : String(error)})`);
    }
    if (packed.exitCode !== 0) {
      const reason = packed.stderr.toString().trim().split("\n").slice(-3).join(" ");
      return err(`npm pack ${spec} failed: ${reason || `exit ${packed.exitCode}`}`);
    }
    const [info] = JSON.parse(packed.stdout.toString()) as Array<{ filename: string }>;
    if (!info) return err(`npm pack ${spec} reported no file`);
    const archive = new Bun.Archive(await Bun.file(join(scratch, info.filename)).bytes());
    mkdirSync(dir, { recursive: true });
    await archive.extract(dir, { glob: `package/bin/${executable}` });
    if (!existsSync(runtime)) return err(`${spec} has no bin/${executable}`);
    return ok(runtime);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
