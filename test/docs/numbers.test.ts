/**
 * The numbers and names the docs state, read from the docs and compared with the code: the tools
 * (names, count, per group), the `tools/list` size bound, Claude Code's `_meta` hints, the layers
 * and the reply budget. A doc that drifts from the code fails here.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { helpText } from "../../src/cli/help.ts";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { DEFAULT_MAX_REPLY_TOKENS } from "../../src/core/settings.ts";
import { TOOLS_LIST_MAX_BYTES } from "../support/tools-list.ts";

const ROOT = join(import.meta.dir, "..", "..");
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), "utf8");
const DOCS = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => ({ name: `docs/${name}`, text: read("docs", name) }));
const PAGES = [{ name: "README.md", text: read("README.md") }, ...DOCS];
const page = (name: string) => PAGES.find((p) => p.name === name)?.text as string;

const registry = createToolRegistry(new Set());
const tools = registry.list() as Array<{ name: string; _meta?: Record<string, unknown> }>;
const names = tools.map((tool) => tool.name).sort();
const withMeta = (key: string) => tools.filter((tool) => tool._meta?.[key] !== undefined).map((t) => t.name);
/** Backticked tool names in a piece of text, sorted. */
const toolNames = (text: string) => [...text.matchAll(/`((?:get|list)_[a-z_]+)`/g)].map((m) => m[1] as string).sort();
/** The one match of `pattern` in `text`, which must be there: the test names what it looks for. */
const clause = (text: string, pattern: RegExp) => {
  const match = pattern.exec(text);
  expect({ pattern: pattern.source, found: match !== null }).toEqual({ pattern: pattern.source, found: true });
  return match?.[1] ?? "";
};

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const WORDS_TEENS = ["eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"];
const numberOf = (word: string) => {
  const index = [...WORDS, ...WORDS_TEENS].indexOf(word.toLowerCase());
  return index >= 0 ? index : Number(word.replace(/,/g, ""));
};

describe("tools", () => {
  test("the README's table and tools.md's tables and headings name exactly the registry's tools", () => {
    const table = page("README.md").slice(page("README.md").indexOf("| Tool | What it answers |"));
    expect(
      toolNames(table.slice(0, table.indexOf("\n\n")).replace(/\|[^|\n]*\|\n/g, (row) => row.split("|")[1] ?? "")),
    ).toEqual(names);
    const rows = [...page("docs/tools.md").matchAll(/^(?:\| |### .*: )`((?:get|list)_[a-z_]+)`/gm)].map(
      (m) => m[1] as string,
    );
    expect([...new Set(rows)].sort()).toEqual(names);
  });

  test("every 'N tools' (and 'N GitHub/Jira/local tools') in the docs is the registry's count", () => {
    const count = (group?: string) => (group ? names.filter((n) => registry.get(n)?.group === group) : names).length;
    const stated = PAGES.flatMap(({ name, text }) =>
      [...text.matchAll(/(?<!the )\b(\d+|[a-z]+) (?:(GitHub|Jira|local) )?tools\b(?!\/)/gi)]
        .filter((m) => !Number.isNaN(numberOf(m[1] as string)))
        .map((m) => ({ name, said: m[0], count: numberOf(m[1] as string), group: m[2]?.toLowerCase() })),
    );
    expect(stated.length).toBeGreaterThan(0);
    for (const claim of stated) expect({ ...claim, count: count(claim.group) }).toEqual(claim);
  });

  test("tools/list: every bound the docs state is the tests' bound, and the real reply is within it", () => {
    const reply = Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 2, result: { tools } }));
    expect(reply).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
    const bounds = PAGES.flatMap(({ name, text }) =>
      [...text.matchAll(/`?tools\/list`?[^.]{0,120}?(?:≤|at most) ([\d.]+) (KiB|KB)(?: \(([\d,]+) bytes)?/g)].map(
        (m) => ({
          name,
          bytes: Math.floor(Number(m[1]) * 1024),
          exact: m[3] === undefined ? null : numberOf(m[3]),
        }),
      ),
    );
    // tools.md and performance.md (its targets, and the latest run's line) state it.
    expect(new Set(bounds.map((b) => b.name))).toEqual(new Set(["docs/tools.md", "docs/performance.md"]));
    for (const bound of bounds) {
      expect(bound).toEqual({ ...bound, bytes: TOOLS_LIST_MAX_BYTES });
      if (bound.exact !== null) expect(bound.exact).toBe(TOOLS_LIST_MAX_BYTES);
    }
    expect(page("docs/tools.md")).toContain(`with all ${names.length} tools`);
  });

  test("performance.md's tools/list table lists every tool once, and its total is within the bound", () => {
    const perf = page("docs/performance.md");
    const section = perf.slice(perf.indexOf("### tools/list size:"));
    const table = section.slice(0, section.indexOf("\n\n\n"));
    const rows = [...table.matchAll(/^\| ([a-z_]+) \| (\d+) \|/gm)].map((m) => m[1] as string);
    expect(rows.sort()).toEqual(names);
    const [, kb, total] = /size: ([\d.]+) KB \((\d+) bytes/.exec(table) ?? [];
    expect(Number(total)).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
    expect((Number(total) / 1024).toFixed(1)).toBe(kb as string);
  });
});

describe("Claude Code's _meta", () => {
  test("alwaysLoad: tools.md and protocol.md name exactly the tools that carry it", () => {
    const carry = withMeta("anthropic/alwaysLoad").sort();
    expect(carry.length).toBeGreaterThan(0);
    expect(toolNames(clause(page("docs/tools.md"), /`_meta`: ([^.]*?) have\s+`anthropic\/alwaysLoad/))).toEqual(carry);
    expect(toolNames(clause(page("docs/protocol.md"), /`anthropic\/alwaysLoad: true` on ([^,]*?), the tools/))).toEqual(
      carry,
    );
  });

  test("maxResultSizeChars: tools.md and protocol.md name exactly the tools that carry it", () => {
    const carry = withMeta("anthropic/maxResultSizeChars").sort();
    expect(carry.length).toBeGreaterThan(0);
    const tools = page("docs/tools.md");
    expect(toolNames(clause(tools, /reply budget \(([^)]*)\) have `anthropic\/maxResultSizeChars`/))).toEqual(carry);
    const protocol = page("docs/protocol.md");
    expect(toolNames(clause(protocol, /`anthropic\/maxResultSizeChars` on [^(]*\(([^)]*)\)/))).toEqual(carry);
    // The tools named as not carrying it do not.
    const without = toolNames(clause(protocol, /\n {2}(`\w+` and `\w+`) page to the budget/));
    expect(without.filter((name) => carry.includes(name))).toEqual([]);
    expect(without.length).toBe(2);
  });
});

test("the README's layer diagram is LAYERS in .dependency-cruiser.cjs", () => {
  const source = clause(read(".dependency-cruiser.cjs"), /const LAYERS = \[([\s\S]*?)\n\];/);
  const layers = [...source.matchAll(/^\s*\[([^\]]*)\]/gm)].map((m) =>
    [...(m[1] as string).matchAll(/"([^"]+)"/g)].map((word) => word[1]).join(", "),
  );
  expect(layers.length).toBeGreaterThan(5);
  const diagram = clause(page("README.md"), /\n(fs → [^\n]*)\n/);
  expect(diagram.split(" → ")).toEqual(layers);
});

test("the reply budget the docs and the help state is the default the code uses", () => {
  const stated = PAGES.flatMap(({ name, text }) =>
    [...text.matchAll(/(?:reply budget|reply stays within)[^.]{0,40}?\b([\d,]+) (tokens|bytes)/gi)].map((m) => ({
      name,
      value: numberOf(m[1] as string),
      unit: m[2],
    })),
  );
  expect(stated.length).toBeGreaterThanOrEqual(2);
  for (const claim of stated) expect(claim).toEqual({ ...claim, value: DEFAULT_MAX_REPLY_TOKENS, unit: "tokens" });
  const help = [helpText(), helpText("call")].join("\n");
  const defaults = [...help.matchAll(/in tokens[^(]*\(default (\d+)/g)].map((m) => Number(m[1]));
  expect(defaults.length).toBe(2);
  for (const value of defaults) expect(value).toBe(DEFAULT_MAX_REPLY_TOKENS);
});

test("development.md's 'Tests that skip' names every test file that can skip", () => {
  const dev = page("docs/development.md");
  const section = dev.slice(dev.indexOf("## Tests that skip"));
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? files(join(dir, entry.name))
        : entry.name.endsWith(".test.ts")
          ? [join(dir, entry.name)]
          : [],
    );
  const skipping = files("test").filter((file) => /\.skipIf\(/.test(read(file)));
  expect(skipping.length).toBeGreaterThan(5);
  const basename = (file: string) => file.split("/").at(-1) as string;
  expect(skipping.filter((file) => !section.includes(basename(file)))).toEqual([]);
});

test("architecture.md's Size table: its last count per folder is src/'s line count now", () => {
  const lines = (path: string): number =>
    readdirSync(join(ROOT, path), { withFileTypes: true }).reduce(
      (sum, entry) =>
        sum +
        (entry.isDirectory()
          ? lines(join(path, entry.name))
          : entry.name.endsWith(".ts")
            ? (read(path, entry.name).match(/\n/g) ?? []).length
            : 0),
      0,
    );
  const size = page("docs/architecture.md").split("## Size")[1] as string;
  const rows = [...size.matchAll(/^\| (`[^`]+`|all of `src\/`) \|(.*)\|$/gm)].map(([, name, rest]) => {
    const counts = (rest as string)
      .split("|")
      .map((cell) => cell.trim())
      .slice(0, -1);
    return { name: (name as string).replaceAll("`", ""), now: counts.at(-1) as string };
  });
  const folders = readdirSync(join(ROOT, "src"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const expected = Object.fromEntries([
    ...folders.map((folder) => [folder.name, lines(join("src", folder.name)).toLocaleString("en-US")]),
    ["main.ts", (read("src", "main.ts").match(/\n/g) ?? []).length.toLocaleString("en-US")],
    ["all of src/", lines("src").toLocaleString("en-US")],
  ]);
  const stated = Object.fromEntries(rows.filter((row) => row.now !== "—").map((row) => [row.name, row.now]));
  expect(stated).toEqual(expected);
});
