#!/usr/bin/env bun
/**
 * A `twig` for tests that run suggested steps: the commands of twig 0.7.1 a plan may contain
 * (../shared/twig-reference.md §12: `rebase`, `branch depend`, `branch remove-dep`, `sync`), on
 * `<work tree>/.twig/state.json` with the real git. Anything else is refused as clap refuses it:
 * `error: unexpected argument '…' found`, exit status 2. `sync` without `--no-github` fails as twig
 * does without credentials, before saving anything. `twigOnPath()` makes a directory to put first on
 * PATH, holding an executable `twig` that runs this file.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A directory whose `twig` runs this stand-in, and whose `gh` takes only `pr edit N --base B` (appended to
 * `gh.log` there): put it first on PATH.
 */
export function twigOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "twig-standin-"));
  const twig = `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(import.meta.path)} "$@"\n`;
  const gh = `#!/bin/sh\n[ "$1 $2 $4" = "pr edit --base" ] && [ $# -eq 5 ] || exit 2\necho "$@" >> ${JSON.stringify(join(dir, "gh.log"))}\n`;
  for (const [name, text] of [
    ["twig", twig],
    ["gh", gh],
  ] as const) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

type Dep = { id: string; child: string; parent: string; created_at: string };
type State = { dependencies: Dep[]; branches: Record<string, unknown>; root_branches: Array<{ id: string }> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fail(message: string, status = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

function git(cwd: string, ...args: string[]): { status: number; stdout: string } {
  const run = spawnSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return { status: run.status ?? 1, stdout: run.stdout.trim() };
}

/** The arguments with `-r/--repo PATH` and the allowed flags taken out; clap's refusal for any other. */
function parse(args: string[], flags: readonly string[], positional: number) {
  let repo = process.cwd();
  const seen = new Set<string>();
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-r" || arg === "--repo") repo = args[++i] ?? fail("error: a value is required for '--repo <PATH>'", 2);
    else if (arg.startsWith("--repo=")) repo = arg.slice("--repo=".length);
    else if (flags.includes(arg)) seen.add(arg);
    else if (arg.startsWith("-") || words.length >= positional) fail(`error: unexpected argument '${arg}' found`, 2);
    else words.push(arg);
  }
  if (words.length < positional) fail("error: the following required arguments were not provided", 2);
  const top = git(repo, "rev-parse", "--show-toplevel");
  if (top.status !== 0) fail("Error: not in a git repository");
  return { root: top.stdout, flags: seen, words };
}

function load(root: string): { path: string; state: State } {
  const path = join(root, ".twig", "state.json");
  const state = (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {}) as State;
  state.dependencies ??= [];
  state.branches ??= {};
  state.root_branches ??= [];
  for (const { id } of [...state.dependencies, ...state.root_branches]) {
    if (!UUID.test(id)) fail(`Error: failed to parse state: invalid UUID '${id}'`);
  }
  return { path, state };
}

const save = (path: string, state: State) => writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`);

if (import.meta.main) {
  const [command, ...rest] = process.argv.slice(2);
  if (command === "rebase" || command === "rb") {
    const { root, flags } = parse(rest, ["--force", "--autostash", "--show-graph"], 0);
    const branch = git(root, "symbolic-ref", "--short", "HEAD").stdout;
    const parents = load(root).state.dependencies.filter((d) => d.child === branch);
    if (parents.length === 0) {
      console.log("No parent branches found for the current branch.");
      process.exit(0);
    }
    for (const { parent } of parents) {
      const extra = [
        ...(flags.has("--force") ? ["--force-rebase"] : []),
        ...(flags.has("--autostash") ? ["--autostash"] : []),
      ];
      if (git(root, "rebase", ...extra, parent).status !== 0) fail(`Error: rebase onto ${parent} failed`);
    }
  } else if (command === "branch" && (rest[0] === "depend" || rest[0] === "remove-dep" || rest[0] === "rm-dep")) {
    const { root, words } = parse(rest.slice(1), [], 2);
    const [child, parent] = words as [string, string];
    const { path, state } = load(root);
    const at = state.dependencies.findIndex((d) => d.child === child && d.parent === parent);
    if (rest[0] === "depend") {
      if (at >= 0) fail(`Error: dependency ${child} -> ${parent} already exists`);
      // A cycle: the parent already descends from the child.
      const ancestors = (branch: string, seen = new Set<string>()): Set<string> => {
        for (const d of state.dependencies.filter((dep) => dep.child === branch && !seen.has(dep.parent))) {
          seen.add(d.parent);
          ancestors(d.parent, seen);
        }
        return seen;
      };
      if (child === parent || ancestors(parent).has(child)) fail("Error: adding this dependency would create a cycle");
      state.dependencies.push({ id: crypto.randomUUID(), child, parent, created_at: new Date().toISOString() });
    } else if (at < 0) console.log(`Warning: no dependency ${child} -> ${parent}`);
    else state.dependencies.splice(at, 1);
    save(path, state);
  } else if (command === "sync") {
    const { root, flags } = parse(rest, ["--dry-run", "--force", "--no-jira", "--no-github"], 0);
    if (!flags.has("--no-github")) fail("Error: GitHub credentials not found");
    const { path, state } = load(root);
    const local = (branch: string) => git(root, "show-ref", "--verify", "--quiet", `refs/heads/${branch}`).status === 0;
    for (const branch of Object.keys(state.branches)) if (!local(branch)) delete state.branches[branch];
    state.dependencies = state.dependencies.filter((d) => local(d.child));
    save(path, state);
  } else {
    fail(`error: unrecognized subcommand '${command ?? ""}'`, 2);
  }
}
