import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { moduleMarksPlugin, parseMarks } from "../../bench/lib/module-marks.ts";
import { deferAjv, EAGER_AJV_IMPORT } from "../../bench/variants/defer-ajv.ts";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { toolError } from "../../src/core/errors.ts";
import { err } from "../../src/core/result.ts";
import { LazyJsonSchemaValidator } from "../../src/mcp/lazy-schema-validator.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";

const ROOT = join(import.meta.dir, "..", "..");
// Inside the project (dist/ is build output), so the program resolves the SDK from its node_modules.
mkdirSync(join(ROOT, "dist", "test"), { recursive: true });
const work = mkdtempSync(join(ROOT, "dist", "test", "defer-ajv-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Bundles a small program the way the bench's defer-ajv variant bundles twig-mcp (the SDK's Server
 * plus the lazy validator, with deferAjv), each module marking when it ran, and runs it: the
 * packages that ran.
 */
async function packagesThatRan(checkASchema: boolean): Promise<{ packages: Set<string>; stdout: string }> {
  const entry = join(work, `entry-${checkASchema}.ts`);
  writeFileSync(
    entry,
    `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { LazyJsonSchemaValidator } from ${JSON.stringify(join(ROOT, "src", "mcp", "lazy-schema-validator.ts"))};
const validator = new LazyJsonSchemaValidator();
new Server({ name: "t", version: "1" }, { capabilities: {}, jsonSchemaValidator: validator });
if (${checkASchema}) {
  const check = validator.getValidator({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
  console.log(JSON.stringify([check({ n: 1 }).valid, check({ n: "x" }).valid, validator.built]));
} else {
  console.log(JSON.stringify([validator.built]));
}
`,
  );
  const out = join(work, `bundle-${checkASchema}`);
  const result = await Bun.build({
    entrypoints: [entry],
    outdir: out,
    target: "bun",
    plugins: [deferAjv, moduleMarksPlugin(ROOT, entry)],
  });
  expect(result.success).toBe(true);
  const run = Bun.spawnSync([process.execPath, join(out, `entry-${checkASchema}.js`)], { cwd: ROOT });
  expect(run.exitCode).toBe(0);
  const marks = parseMarks(run.stderr.toString());
  expect(marks).not.toBeNull();
  return { packages: new Set((marks ?? []).map(([label]) => label)), stdout: run.stdout.toString().trim() };
}

describe("the defer-ajv variant: Ajv is loaded only when a schema is checked", () => {
  test("the SDK's server module still imports Ajv the way the plugin expects", () => {
    const path = join(ROOT, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "server", "index.js");
    expect(readFileSync(path, "utf8")).toContain(EAGER_AJV_IMPORT);
  });

  test("a server that checks no schema never runs Ajv", async () => {
    const { packages, stdout } = await packagesThatRan(false);
    expect(packages.has("@modelcontextprotocol/sdk")).toBe(true);
    expect(packages.has("ajv")).toBe(false);
    expect(packages.has("ajv-formats")).toBe(false);
    expect(stdout).toBe("[false]");
  }, 30_000);

  test("the first schema checked loads it, and it checks as the SDK's own validator does", async () => {
    const { packages, stdout } = await packagesThatRan(true);
    expect(packages.has("ajv")).toBe(true);
    expect(stdout).toBe("[true,false,true]");
  }, 30_000);
});

describe("twig-mcp's server", () => {
  test("is given the lazy validator, so building it builds no Ajv", () => {
    const home = mkdtempSync(join(work, "home-"));
    const ctx = createTestContext({ home, dirs: twigDirs({}, "linux", home), repo: err(toolError("no_repo", "none")) });
    const { server } = createMcpServer(ctx, createToolRegistry(new Set()));
    const validator = (server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;
    expect(validator).toBeInstanceOf(LazyJsonSchemaValidator);
    expect((validator as LazyJsonSchemaValidator).built).toBe(false);
  });
});
