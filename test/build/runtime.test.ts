import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz } from "../../build/archive.ts";
import { fetchRuntime } from "../../build/runtime.ts";
import { hostTarget, type Target } from "../../build/targets.ts";
import { compileBinary } from "../../build.ts";
import pkg from "../../package.json" with { type: "json" };

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), "twig-mcp-runtime-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const host = hostTarget();

/**
 * The fallback for when Bun cannot download a cross-compile runtime: `npm pack @oven/bun-…` and
 * `executablePath`. A stand-in `npm` serves this machine's own Bun as the package, so the test
 * needs no network and proves the runtime is unpacked, cached, and usable for a build.
 */
test.skipIf(process.platform === "win32" || host === null)(
  "a runtime fetched with npm pack builds a working binary",
  async () => {
    const target = host as Target;
    const tarball = join(dir, "runtime.tgz");
    const runtimeBytes = await Bun.file(process.execPath).bytes();
    writeFileSync(tarball, tarGz([{ name: "package/bin/bun", data: runtimeBytes, mode: 0o755 }], new Date(0), 1));
    const calls = join(dir, "calls.txt");
    const npm = join(dir, "npm");
    writeFileSync(
      npm,
      `#!/bin/sh\necho "$@" >> '${calls}'\ncp '${tarball}' "$5/oven-runtime.tgz"\necho '[{"filename":"oven-runtime.tgz"}]'\n`,
    );
    chmodSync(npm, 0o755);

    const cache = join(dir, "cache");
    const runtime = await fetchRuntime(target, Bun.version, cache, npm);
    expect(runtime.ok).toBe(true);
    if (!runtime.ok) return;
    expect(await Bun.file(calls).text()).toStartWith(
      `pack ${target.runtimePackage}@${Bun.version} --json --pack-destination `,
    );
    // A second build reuses the unpacked runtime.
    expect(await fetchRuntime(target, Bun.version, cache, npm)).toEqual(runtime);
    expect((await Bun.file(calls).text()).trim().split("\n")).toHaveLength(1);

    const outfile = join(dir, "twig-mcp");
    await compileBinary({ outfile, target: target.bun, executablePath: runtime.value });
    const run = Bun.spawnSync([outfile, "--version"], { stdout: "pipe" });
    expect(run.stdout.toString()).toBe(`twig-mcp ${pkg.version}\n`);
  },
  60_000,
);

test("a failing npm is reported with its message", async () => {
  const npm = join(dir, "npm-failing");
  writeFileSync(npm, "#!/bin/sh\necho 'npm error 404 Not Found' >&2\nexit 1\n");
  chmodSync(npm, 0o755);
  const target = host ?? ({ id: "linux-x64", runtimePackage: "@oven/bun-linux-x64", os: "linux" } as Target);
  const runtime = await fetchRuntime(target, "0.0.0-test", join(dir, "cache2"), npm);
  expect(runtime).toEqual({
    ok: false,
    error: `npm pack ${target.runtimePackage}@0.0.0-test failed: npm error 404 Not Found`,
  });
});
