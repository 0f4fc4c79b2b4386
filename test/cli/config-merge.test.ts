import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { mergeServerEntry, plainValue, setJsonValue } from "../../src/cli/config-merge.ts";
import type { Result } from "../../src/core/result.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", "configs", name), "utf8");
const entry = { command: "/opt/homebrew/bin/twig-mcp", args: ["--repo", "/Users/alice/src/shop"] };
const vscodeEntry = { type: "stdio", ...entry };

/**
 * The one span in which `result` differs from `original`, as it was and as it is: every byte
 * before and after it is the original's. Where the twig entry goes, nothing else may change.
 */
function changedSpan(original: string, result: string): { at: number; was: string; now: string } {
  let start = 0;
  while (start < original.length && original[start] === result[start]) start++;
  let end = 0;
  while (end < original.length - start && end < result.length - start && original.at(-1 - end) === result.at(-1 - end))
    end++;
  return {
    at: start,
    was: original.slice(start, original.length - end),
    now: result.slice(start, result.length - end),
  };
}

/** Checks that only the twig entry changed: a pure insertion, or a change inside the old entry. */
function expectOnlyEntryChanged(original: string, result: Result<string, string>, key: string, wanted: object) {
  expect(result.ok).toBe(true);
  if (!result.ok) return;
  const span = changedSpan(original, result.value);
  const old = original.indexOf('"twig"');
  if (old === -1) expect(span.was).toBe("");
  else {
    expect(span.at).toBeGreaterThanOrEqual(old);
    expect(span.at + span.was.length).toBeLessThanOrEqual(original.indexOf("\n    }", old) + 6);
  }
  expect((plainValue(result.value) as Record<string, Record<string, unknown>>)[key]?.twig).toEqual(wanted);
}

describe("real client configuration files", () => {
  test.each([
    ["claude_desktop_config.json", "mcpServers", entry],
    ["vscode-mcp.json", "servers", vscodeEntry],
    ["cursor-mcp.json", "mcpServers", entry],
    ["mcp.json", "mcpServers", vscodeEntry],
  ])("%s: only our entry is new or changed; every other byte stays", (name, key, wanted) => {
    const original = fixture(name);
    const result = mergeServerEntry("json", original, key, "twig", wanted);
    expectOnlyEntryChanged(original, result, key, wanted);
    // Again: nothing to change.
    expect(result.ok && mergeServerEntry("json", result.value, key, "twig", wanted)).toEqual(result);
  });

  test("a new server goes after the others, in the file's indentation", () => {
    const result = mergeServerEntry("json", fixture("cursor-mcp.json"), "mcpServers", "twig", entry);
    expect(result.ok && result.value).toContain(
      '"url": "https://mcp.linear.app/sse"\n    },\n    "twig": {\n      "command": "/opt/homebrew/bin/twig-mcp",\n',
    );
    const tabs = mergeServerEntry("json", fixture("vscode-mcp.json"), "servers", "twig", vscodeEntry);
    expect(tabs.ok && tabs.value).toContain('}, // from inputs\n\t\t},\n\t\t"twig": {\n\t\t\t"type": "stdio",\n');
  });

  test("an existing entry is replaced whole: what it held besides ours is gone", () => {
    const result = mergeServerEntry("json", fixture("mcp.json"), "mcpServers", "twig", vscodeEntry);
    expect(result.ok && result.value).not.toContain("JIRA_HOST");
  });

  test("Windows: the byte-order mark and CRLF line ends stay; 4-space indentation is followed", () => {
    const original = fixture("claude_desktop_config.windows.json");
    const result = mergeServerEntry("json", original, "mcpServers", "twig", entry);
    expect(result.ok && result.value).toStartWith(
      '\ufeff{\r\n    "mcpServers": {\r\n        "twig": {\r\n            "command"',
    );
    expect(result.ok && result.value).toEndWith("        }\r\n    }\r\n}\r\n");
    expect(result.ok && result.value.replaceAll("\r\n", "").includes("\n")).toBe(false);
  });

  test("Codex: only [mcp_servers.twig] changes; every comment and other table stays", () => {
    const original = fixture("codex-config.toml");
    const result = mergeServerEntry("toml", original, "mcp_servers", "twig", entry);
    expect(result.ok).toBe(true);
    const text = result.ok ? result.value : "";
    const before = original.indexOf("[mcp_servers.twig]");
    expect(text.slice(0, before)).toBe(original.slice(0, before));
    expect(text.slice(text.indexOf("[tui]"))).toBe(original.slice(original.indexOf("[tui]")));
    expect((Bun.TOML.parse(text) as { mcp_servers: Record<string, unknown> }).mcp_servers.twig).toEqual(entry);
  });

  test("Codex: a config without our table gets it appended after a blank line, under a header", () => {
    const original = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x" # keep\n';
    const result = mergeServerEntry("toml", original, "mcp_servers", "twig", entry);
    expect(result.ok && result.value).toStartWith(
      `${original}\n[mcp_servers.twig]\ncommand = "/opt/homebrew/bin/twig-mcp"\n`,
    );
  });

  test("a missing or empty file becomes a file with just our entry", () => {
    for (const format of ["json", "toml"] as const) {
      const result = mergeServerEntry(format, "", "servers", "twig", vscodeEntry);
      expect(result.ok).toBe(true);
      const parsed = result.ok ? (format === "json" ? JSON.parse(result.value) : Bun.TOML.parse(result.value)) : null;
      expect(parsed).toEqual({ servers: { twig: vscodeEntry } });
      expect(result.ok && result.value).toEndWith("\n");
    }
  });
});

describe("files that cannot be edited are refused, unchanged", () => {
  test.each([
    ['{ "mcpServers": { "a": 1 }', "it is not valid JSON: expected , or } at line 1, column 27"],
    ['{ "mcpServers": [] }', '"mcpServers" holds an array, not an object'],
    ["[1, 2]", "its top level is not a JSON object"],
    ['{ "a": 1 } trailing', "unexpected text after the end of the document"],
    ['{ "a": "unterminated }', "unterminated string"],
    ["{ /* open comment }", "unterminated /* comment"],
  ])("%p", (text, message) => {
    const result = mergeServerEntry("json", text, "mcpServers", "twig", entry);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  test("a file nested too deeply for the parser is refused, not a crash", () => {
    const result = mergeServerEntry("json", `{"a":${"[".repeat(200_000)}`, "mcpServers", "twig", entry);
    expect(result.ok).toBe(false);
  });

  test.each([
    ["model = \n", "it is not valid TOML"],
    ["mcp_servers = 1\n", '"mcp_servers" holds a plain value or an array, not a table'],
  ])("TOML %p", (text, message) => {
    const result = mergeServerEntry("toml", text, "mcp_servers", "twig", entry);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });
});

describe("TOML", () => {
  test("dotted keys and inline tables are edited where they are", () => {
    for (const text of ['[mcp_servers]\ntwig = { command = "x" }\n', 'mcp_servers.twig.command = "x"\n']) {
      const result = mergeServerEntry("toml", text, "mcp_servers", "twig", entry);
      expect(result.ok && (Bun.TOML.parse(result.value) as { mcp_servers: unknown }).mcp_servers).toEqual({
        twig: entry,
      });
    }
  });
});

describe("setJsonValue", () => {
  test("one-line and minified objects keep their line: the value goes on it, unformatted", () => {
    expect(setJsonValue('{"servers":{"a":1}}', ["servers", "b"], { x: [1] })).toEqual({
      ok: true,
      value: '{"servers":{"a":1,"b": {"x":[1]}}}',
    });
    expect(setJsonValue('{ "servers": { "a": 1 } }', ["servers", "b"], 2)).toEqual({
      ok: true,
      value: '{ "servers": { "a": 1,"b": 2 } }',
    });
  });

  test("duplicate keys: an edit that would not read back as meant is refused", () => {
    const result = mergeServerEntry("json", '{\n  "s": {"a": 1},\n  "s": {"b": 2}\n}', "s", "twig", entry);
    expect(result).toEqual({
      ok: false,
      error: "the edited file would not contain s.twig as intended; nothing was changed",
    });
  });

  test("property: any JSON object, any indentation: the result reads as the object with the value set", () => {
    const key = fc.string({ minLength: 1, maxLength: 8 });
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.dictionary(key, json, { maxKeys: 6 }),
        fc.constantFrom(0, 2, 4, "\t"),
        fc.array(key, { minLength: 1, maxLength: 3 }),
        json,
        (document, indent, path, value) => {
          const text = JSON.stringify(document, null, indent);
          const result = setJsonValue(text, path, value);
          const expected = structuredClone(document) as Record<string, unknown>;
          let node: Record<string, unknown> = expected;
          for (const part of path.slice(0, -1)) {
            const next = Object.hasOwn(node, part) ? node[part] : undefined;
            if (next !== undefined && (typeof next !== "object" || next === null || Array.isArray(next))) {
              expect(result.ok).toBe(false);
              return;
            }
            if (next === undefined)
              Object.defineProperty(node, part, { value: {}, enumerable: true, writable: true, configurable: true });
            node = node[part] as Record<string, unknown>;
          }
          Object.defineProperty(node, path.at(-1) as string, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(JSON.parse(result.value)).toEqual(JSON.parse(JSON.stringify(expected)));
          expect(plainValue(result.value)).toEqual(JSON.parse(result.value));
        },
      ),
      { numRuns: 300 },
    );
  });
});
