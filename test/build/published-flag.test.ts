/**
 * `--published` (build.ts's define) is what lets `config` register `bunx twig-mcp`: a binary run
 * from a bunx cache registers the package runner only when built with it, and its path otherwise.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileBinary } from "../../build.ts";
import { makeHermeticHome } from "../support/hermetic-env.ts";

// Two builds of the binary; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), "twig-mcp-published-"));
const home = makeHermeticHome();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
});

test.skipIf(process.platform === "win32").each([
  [true, { command: "bunx", args: ["twig-mcp"] }],
  [false, null],
])("published %p: a run from a bunx cache registers %p", async (published, expected) => {
  const bin = join(dir, `bunx-1000-twig-mcp@${published}`, "node_modules", "twig-mcp-linux-x64", "bin");
  mkdirSync(bin, { recursive: true });
  const binary = join(bin, "twig-mcp");
  await compileBinary({ outfile: binary, published });
  const proc = Bun.spawn([binary, "config", "cursor"], { cwd: home.home, env: home.env, stdout: "pipe" });
  const entry = JSON.parse(await new Response(proc.stdout).text()).mcpServers.twig;
  expect(entry).toEqual(expected ?? { command: binary, args: [] });
});
