import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
// The package's own script run by this Bun: node_modules/.bin shims differ on Windows.
const VALIDATOR = join(root, "node_modules", "@action-validator", "cli", "cli.mjs");
const scratch = mkdtempSync(join(tmpdir(), "twig-mcp-workflows-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function validate(path: string): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn([process.execPath, VALIDATOR, path], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, output: stdout + stderr };
}

const read = (name: string) => readFileSync(join(root, ".github", "workflows", name), "utf8");

describe("GitHub Actions workflows", () => {
  test.each(["ci.yml", "release.yml"])("%s passes action-validator", async (name) => {
    const { code, output } = await validate(join(root, ".github", "workflows", name));
    expect(output).toBe("");
    expect(code).toBe(0);
  });

  test("the validator rejects a broken workflow (so the checks above can fail)", async () => {
    const broken = join(scratch, "broken.yml");
    writeFileSync(broken, read("ci.yml").replace(/runs-on:/, "runs-onn:"));
    expect((await validate(broken)).code).not.toBe(0);
  });

  test("CI runs .ci/run on Linux, macOS and Windows (under Git Bash) for pushes and pull requests", () => {
    const ci = read("ci.yml");
    expect(ci).toContain("os: [ubuntu-latest, macos-latest, windows-latest]");
    expect(ci).toContain("shell: bash");
    expect(ci).toContain("run: bash .ci/run");
    expect(ci).toMatch(/on:\n {2}push:[\s\S]*\n {2}pull_request:/);
  });

  test("a release publishes everything from a v* tag, npm with provenance, the registry by OIDC", () => {
    const release = read("release.yml");
    expect(release).toContain('tags: ["v*"]');
    expect(release).toContain("bun run pack --published");
    expect(release).toContain("dist/*.tar.gz dist/*.zip dist/*.mcpb dist/sha256sums.txt");
    expect(release).toContain("npm publish --provenance --access public");
    expect(release.match(/id-token: write/g)).toHaveLength(2);
    expect(release).toContain("secrets.HOMEBREW_TAP_TOKEN");
    expect(release).toContain("github.repository_owner }}/homebrew-tap");
    expect(release).toContain('mcp-publisher" login github-oidc');
  });
});
