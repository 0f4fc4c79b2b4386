/**
 * A bundler plugin that makes a binary report where its start-up goes: every module (ours by file,
 * third-party ones by package) records `performance.now()` when its body has run, and the binary
 * prints the list to stderr as it exits. The time since the previous mark is what evaluating that
 * module took, together with any unmarked code the bundle ran just before it.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { BunPlugin } from "bun";

/** The stderr line prefix the marks come after, as JSON `[label, ms][]`. */
export const MARKS_PREFIX = "TWIG_MODULE_MARKS ";

const GLOBAL = "__twigModuleMarks";

/** `@scope/name` or `name` for a file inside node_modules; `null` for any other file. */
export function packageOf(path: string): string | null {
  const parts = path.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return null;
  const first = parts[at + 1];
  if (first === undefined) return null;
  return first.startsWith("@") ? `${first}/${parts[at + 2] ?? ""}` : first;
}

/** Marks every module under `root` (by path from it) and every package (by name); `entry` also prints them. */
export function moduleMarksPlugin(root: string, entry: string): BunPlugin {
  return {
    name: "module-marks",
    setup(build) {
      build.onLoad({ filter: /\.(ts|js|mjs|cjs)$/ }, (args) => {
        // Macros run inside the bundler; their output is inlined, so there is nothing to mark.
        if (args.path.endsWith(".macro.ts")) return undefined;
        const label = packageOf(args.path) ?? relative(root, args.path);
        let contents = readFileSync(args.path, "utf8");
        contents += `\n;(globalThis.${GLOBAL} ??= []).push([${JSON.stringify(label)}, performance.now()]);\n`;
        if (args.path === entry) {
          contents += `process.on("exit", () => process.stderr.write(${JSON.stringify(MARKS_PREFIX)} + JSON.stringify(globalThis.${GLOBAL}) + "\\n"));\n`;
        }
        return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      });
    },
  };
}

export type Mark = [label: string, ms: number];

/** The marks a run printed, or `null` when its stderr has none. */
export function parseMarks(stderr: string): Mark[] | null {
  const line = stderr.split("\n").find((l) => l.startsWith(MARKS_PREFIX));
  if (line === undefined) return null;
  return JSON.parse(line.slice(MARKS_PREFIX.length)) as Mark[];
}

/** The group the time before the first mark goes to: the runtime starting up. */
export const RUNTIME_START = "runtime start (before the first module)";

/**
 * What each group cost in one run: the time from the previous mark to each mark, summed by
 * `groupOf(label)`; the time from the process start to the first mark is {@link RUNTIME_START}.
 */
export function costsByGroup(marks: readonly Mark[], groupOf: (label: string) => string): Map<string, number> {
  const costs = new Map<string, number>();
  let previous = 0;
  for (const [index, [label, at]] of marks.entries()) {
    const group = index === 0 ? RUNTIME_START : groupOf(label);
    costs.set(group, (costs.get(group) ?? 0) + (at - previous));
    previous = at;
  }
  return costs;
}
