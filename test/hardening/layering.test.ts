/**
 * Clean layers, enforced the way static-readonly.test.ts enforces "no writes": dependency-cruiser
 * runs over src/ with the project's own rules (.dependency-cruiser.cjs, the same run as
 * `bun run depcheck`) and must find nothing. A rule set that silently stopped matching would pass
 * that check too, so the same config is also run over a small tree that breaks each rule on
 * purpose, and every break must be reported.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { allTools } from "../../src/tools/all.ts";

// Each run starts a dependency-cruiser process that parses every module with TypeScript: seconds
// on a quiet machine, several times that on a busy one.
setDefaultTimeout(120_000);

const ROOT = resolve(import.meta.dir, "..", "..");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: Array<{ name: string } | string>;
}

interface CruiseSummary {
  violations: Violation[];
  totalCruised: number;
}

/**
 * Runs dependency-cruiser over `src` in `cwd` with the project's config and returns its summary.
 * Under Bun (`--bun`), as `bun run depcheck` does: the tool refuses the Node version some machines
 * have.
 */
async function cruise(cwd: string): Promise<CruiseSummary> {
  const proc = Bun.spawn([process.execPath, "--bun", DEPCRUISE, "src", "--config", CONFIG, "--output-type", "json"], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  let parsed: { summary?: CruiseSummary };
  try {
    parsed = JSON.parse(stdout) as { summary?: CruiseSummary };
  } catch {
    throw new Error(`dependency-cruiser printed no JSON (exit ${proc.exitCode}):\n${stderr}\n${stdout.slice(0, 2000)}`);
  }
  if (!parsed.summary) throw new Error(`dependency-cruiser printed no summary:\n${stderr}`);
  return parsed.summary;
}

function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).join("\n");
}

describe("layering of src/", () => {
  test("dependency-cruiser finds no violation of .dependency-cruiser.cjs in src/", async () => {
    const summary = await cruise(ROOT);
    // A run that cruised nothing (a wrong path, a changed CLI) would also report no violation.
    expect(summary.totalCruised).toBeGreaterThan(50);
    expect(describeViolations(summary.violations)).toBe("");
  });
});

describe("the layering rules bite", () => {
  const tree = mkdtempSync(join(tmpdir(), "twig-mcp-layering-"));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  function write(path: string, text: string): void {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }

  // The config resolves imports through tsconfig.json in the working directory.
  copyFileSync(join(ROOT, "tsconfig.json"), join(tree, "tsconfig.json"));
  // A file-level cycle inside one folder: no layer rule can see it, only no-circular.
  write("src/core/a.ts", 'import { b } from "./b.ts";\nexport const a = () => b;\n');
  write("src/core/b.ts", 'import { a } from "./a.ts";\nexport const b = () => a;\n');
  // A cycle made only of type imports, which vanish at run time but are a design cycle all the same.
  write("src/git/left.ts", 'import type { Right } from "./right.ts";\nexport interface Left { right?: Right }\n');
  write("src/git/right.ts", 'import type { Left } from "./left.ts";\nexport interface Right { left?: Left }\n');
  // A lower folder importing a higher one, with no cycle at all.
  write("src/fs/read.ts", 'import { tool } from "../tools/tool.ts";\nexport const read = () => tool;\n');
  write("src/tools/tool.ts", "export const tool = 1;\n");
  // Siblings in one layer may not import each other either (that is how folder cycles start).
  write("src/github/client.ts", 'import { jira } from "../jira/client.ts";\nexport const github = () => jira;\n');
  write("src/jira/client.ts", "export const jira = 1;\n");
  // Allowed: a higher layer importing a lower one. Must not be reported.
  write("src/twig/state.ts", 'import { read } from "../fs/read.ts";\nexport const state = () => read;\n');

  let result: CruiseSummary;
  beforeAll(async () => {
    result = await cruise(tree);
  });

  /** The cycles reported among files under `folder`, each as its sorted member files. */
  function cyclesIn(folder: string): string[][] {
    return result.violations
      .filter((v) => v.rule.name === "no-circular" && v.from.startsWith(folder))
      .map((v) => [v.from, ...(v.cycle ?? []).map((step) => (typeof step === "string" ? step : step.name))])
      .map((members) => [...new Set(members)].sort());
  }

  test("a cycle between two files is reported", () => {
    expect(cyclesIn("src/core/")).toEqual([["src/core/a.ts", "src/core/b.ts"]]);
  });

  test("a cycle made only of type imports is reported", () => {
    expect(cyclesIn("src/git/")).toEqual([["src/git/left.ts", "src/git/right.ts"]]);
  });

  test("a lower layer importing a higher one is reported", () => {
    const { violations } = result;
    expect(violations.filter((v) => v.rule.name === "layer-fs").map((v) => `${v.from} → ${v.to}`)).toEqual([
      "src/fs/read.ts → src/tools/tool.ts",
    ]);
  });

  test("a folder importing a sibling in its own layer is reported", () => {
    const { violations } = result;
    expect(violations.filter((v) => v.rule.name === "layer-github").map((v) => `${v.from} → ${v.to}`)).toEqual([
      "src/github/client.ts → src/jira/client.ts",
    ]);
  });

  test("nothing else is reported: an import down the layers is allowed", () => {
    const { violations } = result;
    expect(violations.filter((v) => v.from === "src/twig/state.ts")).toEqual([]);
    // One per cycle (dependency-cruiser reports a cycle once) and one per layer break.
    expect(violations).toHaveLength(4);
  });
});

/** A tool file declares a tool; what tools share lives in modules of its own (src/tools/shared/). */
describe("no tool file imports another tool file", () => {
  const toolsDir = join(ROOT, "src", "tools");
  const files = [...new Bun.Glob("**/*.ts").scanSync(toolsDir)].map((path) => join(toolsDir, path));
  const isTool = (path: string) => /\bdefineTool\(/.test(readFileSync(path, "utf8"));
  const tools = new Set(files.filter(isTool));

  test("the tools are found", () => {
    expect(tools.size).toBe(allTools.length);
  });

  test("src/tools/ holds the tools, each in a file named after it, and all.ts; shared parts live in shared/", () => {
    const topLevel = readdirSync(toolsDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
    const expected = [...allTools.map((tool) => `${tool.name.replaceAll("_", "-")}.ts`), "all.ts"].sort();
    expect(topLevel).toEqual(expected);
    for (const name of expected.filter((n) => n !== "all.ts")) expect(tools.has(join(toolsDir, name))).toBe(true);
  });

  test("each tool file's imports are no tool files", () => {
    const crossings = [...tools].flatMap((path) =>
      [...readFileSync(path, "utf8").matchAll(/from "(\.[^"]+)"/g)].flatMap(([, spec]) => {
        const target = resolve(dirname(path), spec as string);
        return tools.has(target) ? [`${path.slice(ROOT.length + 1)} → ${target.slice(ROOT.length + 1)}`] : [];
      }),
    );
    expect(crossings).toEqual([]);
  });
});
