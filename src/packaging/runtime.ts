import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import type { Target } from "./targets.ts";

/**
 * The Bun runtime for another platform, fetched as its npm package (`@oven/bun-linux-aarch64`…)
 * with `npm pack`. Bun downloads cross-compile runtimes itself, but only from its default
 * registry address; `npm pack` goes through the user's npm configuration (a mirror, a proxy,
 * an offline cache), so it still works where Bun's own download does not. Returns the runtime's path.
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
      // spawnSync pipes both stdout and stderr by default.
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
