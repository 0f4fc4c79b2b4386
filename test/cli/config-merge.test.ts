import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { plainValue, setJsonValue } from "../../src/cli/config/jsonc.ts";
import { mergeServerEntry } from "../../src/cli/config/merge.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", "configs", name), "utf8");
const entry = { command: "/opt/homebrew/bin/twig-mcp", args: ["--repo", "/Users/alice/src/shop"] };
const vscodeEntry = { type: "stdio", ...entry };

/** `text` with exactly one insertion at the first occurrence of `after`. */
function inserted(text: string, after: string, insertion: string): string {
  const at = text.indexOf(after);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(0, at + after.length) + insertion + text.slice(at + after.length);
}

describe("real client configuration files", () => {
  test("Claude Desktop: a new server goes after the others; the rest is byte-identical", () => {
    const original = fixture("claude_desktop_config.json");
    const result = mergeServerEntry("json", original, "mcpServers", "twig", entry);
    const expected = inserted(
      original,
      '        "LOG_LEVEL": "debug"\n      }\n    }',
      ',\n    "twig": {\n      "command": "/opt/homebrew/bin/twig-mcp",\n      "args": ["--repo", "/Users/alice/src/shop"]\n    }',
    );
    expect(result).toEqual({ ok: true, value: expected });
    expect(() => JSON.parse(expected)).not.toThrow();
  });

  test("VS Code (JSONC, tabs, comments, trailing commas): all kept, the new entry matches its neighbours", () => {
    const original = fixture("vscode-mcp.json");
    const result = mergeServerEntry("json", original, "servers", "twig", vscodeEntry);
    const expected = inserted(
      original,
      "}, // from inputs\n\t\t},",
      '\n\t\t"twig": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "/opt/homebrew/bin/twig-mcp",\n\t\t\t"args": ["--repo", "/Users/alice/src/shop"]\n\t\t},',
    );
    expect(result).toEqual({ ok: true, value: expected });
  });

  test("Cursor: a remote server next to ours", () => {
    const original = fixture("cursor-mcp.json");
    const result = mergeServerEntry("json", original, "mcpServers", "twig", entry);
    expect(result.ok && result.value).toBe(
      inserted(
        original,
        '"url": "https://mcp.linear.app/sse"\n    }',
        ',\n    "twig": {\n      "command": "/opt/homebrew/bin/twig-mcp",\n      "args": ["--repo", "/Users/alice/src/shop"]\n    }',
      ),
    );
  });

  test("an existing entry gets new command and args and keeps its env", () => {
    const original = fixture("mcp.json");
    const result = mergeServerEntry("json", original, "mcpServers", "twig", { type: "stdio", ...entry });
    expect(result.ok && result.value).toBe(
      original
        .replace('"/old/path/twig-mcp"', '"/opt/homebrew/bin/twig-mcp"')
        .replace('["--repo", "/old/repo"]', '["--repo", "/Users/alice/src/shop"]'),
    );
    const again = result.ok
      ? mergeServerEntry("json", result.value, "mcpServers", "twig", { type: "stdio", ...entry })
      : null;
    expect(again).toEqual(result);
  });

  test("Windows: the byte-order mark and CRLF line ends stay; 4-space indentation is followed", () => {
    const original = fixture("claude_desktop_config.windows.json");
    const result = mergeServerEntry("json", original, "mcpServers", "twig", entry);
    expect(result.ok && result.value).toBe(
      '\ufeff{\r\n    "mcpServers": {\r\n        "twig": {\r\n            "command": "/opt/homebrew/bin/twig-mcp",\r\n' +
        '            "args": ["--repo", "/Users/alice/src/shop"]\r\n        }\r\n    }\r\n}\r\n',
    );
  });

  test("Codex: only the keys of [mcp_servers.twig] change; its env table and everything else stay", () => {
    const original = fixture("codex-config.toml");
    const result = mergeServerEntry("toml", original, "mcp_servers", "twig", entry);
    expect(result.ok && result.value).toBe(
      original
        .replace('command = "/usr/local/bin/twig-mcp-old"', 'command = "/opt/homebrew/bin/twig-mcp"')
        .replace(
          'args = [\n  "--repo",\n  "/src/old", # the old checkout\n]',
          'args = ["--repo", "/Users/alice/src/shop"]',
        ),
    );
    const parsed = Bun.TOML.parse(result.ok ? result.value : "") as { mcp_servers: Record<string, unknown> };
    expect(parsed.mcp_servers.twig).toEqual({
      ...entry,
      startup_timeout_sec: 20,
      env: { JIRA_HOST: "example.atlassian.net" },
    });
  });

  test("Codex: a config without our table gets it appended after a blank line", () => {
    const original = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const result = mergeServerEntry("toml", original, "mcp_servers", "twig", entry);
    expect(result.ok && result.value).toBe(
      `${original}\n[mcp_servers.twig]\ncommand = "/opt/homebrew/bin/twig-mcp"\nargs = ["--repo", "/Users/alice/src/shop"]\n`,
    );
  });

  test("a missing or empty file becomes a file with just our entry", () => {
    expect(mergeServerEntry("json", "", "servers", "twig", vscodeEntry)).toEqual({
      ok: true,
      value:
        '{\n  "servers": {\n    "twig": {\n      "type": "stdio",\n      "command": "/opt/homebrew/bin/twig-mcp",\n      "args": ["--repo", "/Users/alice/src/shop"]\n    }\n  }\n}\n',
    });
    expect(mergeServerEntry("toml", "", "mcp_servers", "twig", entry)).toEqual({
      ok: true,
      value: '[mcp_servers.twig]\ncommand = "/opt/homebrew/bin/twig-mcp"\nargs = ["--repo", "/Users/alice/src/shop"]\n',
    });
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
    ['[mcp_servers]\ntwig = { command = "x" }\n', "without a [mcp_servers.twig] header"],
    ['mcp_servers.twig.command = "x"\n', "without a [mcp_servers.twig] header"],
  ])("TOML %p", (text, message) => {
    const result = mergeServerEntry("toml", text, "mcp_servers", "twig", entry);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });
});

describe("setJsonValue", () => {
  test("a comment after the last member stays on that member's line", () => {
    const text = '{\n  "servers": {\n    "a": 1 // the first\n  }\n}\n';
    expect(setJsonValue(text, ["servers", "b"], 2)).toEqual({
      ok: true,
      value: '{\n  "servers": {\n    "a": 1, // the first\n    "b": 2\n  }\n}\n',
    });
  });

  test("one-line and minified objects are edited in their own style", () => {
    expect(setJsonValue('{"servers":{"a":1}}', ["servers", "b"], { x: [1] })).toEqual({
      ok: true,
      value: '{"servers":{"a":1,"b":{"x":[1]}}}',
    });
    expect(setJsonValue('{ "servers": { "a": 1 } }', ["servers", "b"], 2)).toEqual({
      ok: true,
      value: '{ "servers": { "a": 1, "b": 2 } }',
    });
  });

  test("duplicate keys: the last one, which JSON readers use, is edited", () => {
    const result = setJsonValue('{\n  "s": {"a": 1},\n  "s": {"b": 2}\n}', ["s", "c"], 3);
    expect(result.ok && JSON.parse(result.value)).toEqual({ s: { b: 2, c: 3 } });
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
