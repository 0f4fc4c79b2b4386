import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const read = (...path: string[]) => readFileSync(join(import.meta.dir, "..", "..", ...path), "utf8");
const readme = read("README.md");
const section = (text: string, heading: string) => {
  const start = text.indexOf(`\n${heading}\n`);
  const end = text.indexOf("\n## ", start + heading.length + 2);
  return text.slice(start, end === -1 ? undefined : end);
};

test("the quick start copies the binary onto PATH before registering it", () => {
  const quick = section(readme, "## Quick start");
  const copy = quick.indexOf("cp dist/twig-mcp ");
  expect(copy).toBeGreaterThan(-1);
  expect(quick.indexOf("twig-mcp config claude-code")).toBeGreaterThan(copy);
});

test("the README says how to re-register after moving or upgrading, Claude Code's remove included", () => {
  const register = section(readme, "## Register with your client");
  expect(register).toContain("Moved or upgraded the binary?");
  expect(register).toContain("claude mcp remove twig -s user");
});

test("one measured test time, in docs/development.md; the README links to it", () => {
  expect(readme).toContain("docs/development.md#test-time");
  expect(readme).not.toMatch(/\(\d+ s\)|minute and a half|two minutes/);
  const development = read("docs", "development.md");
  expect(section(development, "## Test time")).toMatch(/`bun run test` took \d+ s/);
  // The command list points at that section rather than repeating a figure.
  expect(development).toContain("end-to-end tests (see Test time below)");
  expect(development).not.toMatch(/tests \(about [\d.]+ min/);
});

test("the quick start puts ~/.local/bin on PATH, for this shell and the next, before running twig-mcp by name", () => {
  const quick = section(readme, "## Quick start");
  const path = quick.indexOf(
    `echo 'export PATH="$HOME/.local/bin:$PATH"' >> ~/.bashrc && export PATH="$HOME/.local/bin:$PATH"`,
  );
  expect(path).toBeGreaterThan(quick.indexOf("cp dist/twig-mcp ~/.local/bin/"));
  expect(quick.indexOf("\ntwig-mcp call ")).toBeGreaterThan(path);
});

test("getting Bun without bun.sh: npm installs the version .ci/run pins", () => {
  const pinned = /^BUN_VERSION="([^"]+)"$/m.exec(read(".ci", "run"))?.[1];
  expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  expect(section(readme, "## Prerequisites")).toContain(`\`npm install -g bun@${pinned}\``);
  expect(read("docs", "install.md")).toContain(`npm install -g bun@${pinned}`);
});
