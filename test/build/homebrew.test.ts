import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz } from "../../build/archive.ts";
import { type HomebrewSlot, renderFormula, rubyString } from "../../build/homebrew.ts";
import { sha256Hex as sha256 } from "../../src/core/sha256.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), "twig-mcp-formula-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Stand-in archives: each slot's checksum must land in its own `on_<os>`/`on_<cpu>` block. */
const slots: HomebrewSlot[] = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"];
const fixtures = Object.fromEntries(
  slots.map((slot) => {
    const bytes = tarGz([{ name: "twig-mcp", data: new TextEncoder().encode(slot), mode: 0o755 }], new Date(0), 1);
    return [slot, { file: `twig-mcp-${slot}.tar.gz`, sha256: sha256(bytes) }];
  }),
) as Record<HomebrewSlot, { file: string; sha256: string }>;

const input = {
  version: "1.2.3",
  description: "Read-only MCP server for twig branch stacks, GitHub PRs and Jira issues",
  homepage: "https://github.com/example/twig-mcp",
  license: "MIT",
  urlPattern: "https://github.com/example/twig-mcp/releases/download/{tag}/{file}?v={version}",
  archives: fixtures,
};

function blockOf(formula: string, os: "macos" | "linux", cpu: "arm" | "intel"): string {
  const osBlock = new RegExp(`  on_${os} do\\n([\\s\\S]*?)\\n  end\\n`).exec(formula)?.[1] ?? "";
  return new RegExp(`    on_${cpu} do\\n([\\s\\S]*?)\\n    end`).exec(osBlock)?.[1] ?? "";
}

describe("renderFormula", () => {
  const formula = renderFormula(input);

  test.each([
    ["macos", "arm", "darwin-arm64"],
    ["macos", "intel", "darwin-x64"],
    ["linux", "arm", "linux-arm64"],
    ["linux", "intel", "linux-x64"],
  ] as const)("on_%s/on_%s downloads the %s archive with its sha256", (os, cpu, slot) => {
    const block = blockOf(formula, os, cpu);
    expect(block).toContain(
      `url "https://github.com/example/twig-mcp/releases/download/v1.2.3/twig-mcp-${slot}.tar.gz?v=1.2.3"`,
    );
    expect(block).toContain(`sha256 "${fixtures[slot].sha256}"`);
  });

  test("installs the binary and tests it with --version", () => {
    expect(formula).toContain("class TwigMcp < Formula");
    expect(formula).toContain('  version "1.2.3"');
    expect(formula).toContain('    bin.install "twig-mcp"');
    expect(formula).toContain('shell_output("#{bin}/twig-mcp --version")');
  });

  test("a platform without an archive is left out", () => {
    const partial = renderFormula({ ...input, archives: { "linux-x64": fixtures["linux-x64"] } });
    expect(partial).not.toContain("on_macos");
    expect(blockOf(partial, "linux", "intel")).toContain(fixtures["linux-x64"].sha256);
    expect(partial).not.toContain("on_arm");
  });

  test.skipIf(!Bun.which("ruby"))("is valid Ruby", () => {
    for (const [name, text] of [
      ["full.rb", formula],
      ["partial.rb", renderFormula({ ...input, archives: { "darwin-arm64": fixtures["darwin-arm64"] } })],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const result = Bun.spawnSync(["ruby", "-c", path], { stdout: "pipe", stderr: "pipe" });
      expect(result.stderr.toString()).toBe("");
      expect(result.stdout.toString()).toContain("Syntax OK");
    }
  });
});

test("rubyString never interpolates", () => {
  expect(rubyString('a "b" \\ #{x}')).toBe('"a \\"b\\" \\\\ \\#{x}"');
});
