/**
 * Read-only by construction: no module under src/ uses an API that writes, creates, moves, deletes
 * or re-permissions files, or starts a process — except the allowlisted modules, and the server's
 * code (everything `src/cli/serve.ts` imports, statically or on demand) reaches none of those.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "..", "..");
const SRC = join(ROOT, "src");

/**
 * Modules that may write, each with the reason. Nothing the server runs may import them (checked
 * below), so they cannot widen what `twig-mcp` does while serving.
 */
const ALLOWLIST: Array<{ pattern: RegExp; reason: string }> = [
  {
    pattern: /^src\/cli\/config(-write-file)?\.ts$/,
    reason:
      "`twig-mcp config --write` edits an AI client's configuration file when the user asks; it is not the server",
  },
  {
    pattern: /^src\/cli\/demo(\.ts|\/)/,
    reason:
      "`twig-mcp demo` builds a throwaway sample repository with git in a temporary directory and removes it; it is not the server",
  },
];

/** fs functions that only read (or watch). Anything else imported from fs is a finding. */
const READ_ONLY_FS = new Set([
  "access",
  "accessSync",
  "closeSync",
  "constants",
  "Dirent",
  "existsSync",
  "FSWatcher",
  "fstatSync",
  "lstat",
  "lstatSync",
  // Opens read-only, as long as no write flag appears (checked by the patterns below).
  "openSync",
  "readdir",
  "readdirSync",
  "readFile",
  "readFileSync",
  "readlink",
  "readlinkSync",
  "readSync",
  "realpath",
  "realpathSync",
  "stat",
  "Stats",
  "statSync",
  "watch",
]);

const FS_MODULES = /^(node:)?fs(\/promises)?$/;
const PROCESS_MODULES = /^(node:)?(child_process|cluster|worker_threads)$/;

export interface Finding {
  line: number;
  text: string;
  why: string;
}

/** Comments removed, line numbers kept. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, " ")).replace(/^\s*\/\/.*$/gm, "");
}

/** Every use of a write or process API in `source`. */
export function findWriteApis(source: string): Finding[] {
  const code = withoutComments(source);
  const lines = code.split("\n");
  const findings: Finding[] = [];
  const lineOf = (index: number) => code.slice(0, index).split("\n").length;
  const add = (index: number, why: string) => {
    const line = lineOf(index);
    findings.push({ line, text: (lines[line - 1] ?? "").trim(), why });
  };

  for (const match of code.matchAll(/import\s+(type\s+)?([\s\S]*?)\s+from\s+["']([^"']+)["']/g)) {
    const [, typeOnly, clause = "", module = ""] = match;
    if (PROCESS_MODULES.test(module)) add(match.index, `imports ${module}`);
    if (!FS_MODULES.test(module) || typeOnly) continue;
    const named = /\{([\s\S]*)\}/.exec(clause)?.[1];
    if (/^\s*\*/.test(clause) || /^\s*[A-Za-z_$][\w$]*\s*(,|$)/.test(clause)) {
      add(match.index, `imports all of ${module} (name the read-only functions instead)`);
    }
    for (const specifier of (named ?? "").split(",")) {
      const name = specifier
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]
        ?.trim();
      if (name && !READ_ONLY_FS.has(name)) add(match.index, `imports ${name} from ${module}`);
    }
  }
  const patterns: Array<[RegExp, string]> = [
    [/\bBun\.write\s*\(/g, "Bun.write"],
    [/\.writer\s*\(/g, "a file writer"],
    [/\bBun\.(spawn|spawnSync)\s*\(/g, "starts a process"],
    [/\bBun\.\$/g, "starts a shell"],
    [/\brequire\s*\(\s*["'](node:)?(fs|fs\/promises|child_process)["']\s*\)/g, "requires fs or child_process"],
    [/\bimport\s*\(\s*["'](node:)?(fs|fs\/promises|child_process)["']\s*\)/g, "imports fs or child_process on demand"],
    [/\bprocess\.binding\s*\(/g, "process.binding"],
    [/\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b/g, "an open flag that writes"],
    [/\bopenSync\s*\([^,)]*,\s*["'`](?!r["'`])/g, "opens with a write mode"],
  ];
  for (const [pattern, why] of patterns) for (const match of code.matchAll(pattern)) add(match.index, why);
  return findings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|cjs|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const rel = (file: string) => relative(ROOT, file).split("\\").join("/");
const allowed = (file: string) => ALLOWLIST.find((entry) => entry.pattern.test(rel(file)));

/** Relative modules `file` imports, statically or on demand (`import()`), resolved to files. */
function importsOf(file: string): string[] {
  const code = withoutComments(readFileSync(file, "utf8"));
  const specifiers = [
    ...code.matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\s\S]*?\s+from\s+)?["'](\.[^"']+)["']/g),
    ...code.matchAll(/\bimport\s*\(\s*["'](\.[^"']+)["']\s*\)/g),
    ...code.matchAll(/\brequire\s*\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((match) => match[1] as string);
  return specifiers.filter((s) => /\.(ts|js|cjs|mjs)$/.test(s)).map((s) => resolve(dirname(file), s));
}

function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...importsOf(file));
  }
  return seen;
}

describe("the scanner", () => {
  test("finds write and process APIs in their usual spellings", () => {
    const bad = [
      'import { writeFile } from "node:fs/promises";',
      'import { readFile, writeFileSync as w } from "fs";',
      'import * as fs from "node:fs";',
      'import fs from "fs";',
      'import { mkdir, rm, rename, unlink, copyFile, symlink, chmod, open, appendFile, createWriteStream, truncate, utimes } from "node:fs";',
      'import { spawn } from "node:child_process";',
      "await Bun.write(path, text);",
      "const w = Bun.file(path).writer();",
      "Bun.spawnSync(['git', 'status']);",
      "await Bun.$`rm -rf x`;",
      'const fs = require("node:fs");',
      'const cp = await import("child_process");',
    ];
    for (const source of bad) expect(findWriteApis(source).length).toBeGreaterThan(0);
    expect(findWriteApis(bad[4] as string).length).toBe(12);
  });

  test("lets reads, watches, type imports and comments through", () => {
    const good = [
      'import { readdir, stat, lstat, realpath, readlink } from "node:fs/promises";',
      'import { existsSync, type FSWatcher, watch } from "node:fs";',
      'import type { Dirent, WriteStream } from "node:fs";',
      "const bytes = await Bun.file(path).bytes();",
      "process.stderr.write(line);",
      "// await Bun.write(path, text) would be wrong here",
      "/* import { writeFile } from 'node:fs' */",
      "function truncate(text: string) { return text.slice(0, 3); }",
    ];
    for (const source of good) expect(findWriteApis(source)).toEqual([]);
  });
});

describe("src/", () => {
  test("no module uses a write or process API, outside the allowlist", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (allowed(file)) continue;
      for (const finding of findWriteApis(readFileSync(file, "utf8"))) {
        offenders.push(`${rel(file)}:${finding.line}: ${finding.why}: ${finding.text}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test("the allowlist names only what exists, and each entry still needs to be there", () => {
    for (const entry of ALLOWLIST) {
      const files = sourceFiles(SRC).filter((file) => entry.pattern.test(rel(file)));
      const writing = files.filter((file) => findWriteApis(readFileSync(file, "utf8")).length > 0);
      // An entry that no longer matches a writing module should be removed.
      expect({ entry: entry.pattern.source, writing: writing.length > 0 }).toEqual({
        entry: entry.pattern.source,
        writing: true,
      });
    }
  });

  test("the server's code — everything src/cli/serve.ts can import — reaches no allowlisted module", () => {
    const serving = reachableFrom(join(SRC, "cli", "serve.ts"));
    expect(serving.size).toBeGreaterThan(40);
    expect([...serving].filter((file) => allowed(file)).map(rel)).toEqual([]);
  });

  test("of the commands, only `config` and `demo` reach an allowlisted module", () => {
    const main = readFileSync(join(SRC, "main.ts"), "utf8");
    const commands = [...main.matchAll(/import\(\s*["'](\.\/cli\/[^"']+)["']\s*\)/g)].map((m) => m[1] as string);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      const reached = [...reachableFrom(resolve(SRC, command))].filter((file) => allowed(file)).map(rel);
      if (command === "./cli/config.ts" || command === "./cli/demo.ts") expect(reached.length).toBeGreaterThan(0);
      else expect({ command, reached }).toEqual({ command, reached: [] });
    }
  });
});

describe("the serving path's file access", () => {
  test("goes through src/fs, never node:fs/promises (a thread-pool hop costs ten times the read)", () => {
    const serving = [...reachableFrom(join(SRC, "cli", "serve.ts"))];
    const offenders = serving.filter((file) =>
      /from\s+["'](node:)?fs\/promises["']/.test(withoutComments(readFileSync(file, "utf8"))),
    );
    expect(offenders.map(rel)).toEqual([]);
  });
});
