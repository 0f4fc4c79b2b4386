import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import { CLIENTS, type DemoOptions } from "./args.ts";
import { shellQuote, twigMcpOnPath, typedCommand } from "./config-self-command.ts";
import { renderToolData, toolData, writeErr, writeOut } from "./output.ts";
import { createRuntimeContext, createToolRegistry } from "./runtime.ts";

/** Checked out in the main checkout, and in a linked worktree (named as twig names one: `/` as `-`). */
const SAMPLE_CURRENT = "feature/auth";
const SAMPLE_WORKTREE_BRANCH = "feature/auth-ui";
const WORKTREE_NAME = SAMPLE_WORKTREE_BRANCH.replaceAll("/", "-");

/** Each cut from `parent` (also its twig parent), with a commit that adds `file`. */
const SAMPLE_BRANCHES = (
  [
    ["feature/auth", "main", "SHOP-123", 42, "src/auth.ts", "Sign in with email"],
    ["feature/auth-ui", "feature/auth", "SHOP-124", 43, "src/auth-form.tsx", "Sign-in form"],
    ["feature/billing", "main", "SHOP-200", 51, "src/billing.ts", "Billing accounts"],
    ["feature/billing-invoices", "feature/billing", "SHOP-201", null, "src/invoices.ts", "Monthly invoices"],
  ] as const
).map(([name, parent, jira, pr, file, title]) => ({ name, parent, jira, pr, file, message: `${jira} ${title}` }));

/** The dependencies' ids, in branch order. */
const IDS =
  "0f8d2c6e-5b7a-4c1e-9d3f-2a6b8e4c1d70 7c1e9a44-3f2b-4d6a-8e05-b9d2f1a3c6e8 c2a5e7f1-9b3d-4e8a-a6c4-1d7f0b2e9a35 3b7f0d2a-6c4e-4a19-8f25-e1d9c3b7a640".split(
    " ",
  );

/** The `.twig/state.json` twig would write (docs/state-format.md); fixed ids and times, so every run shows the same. */
function sampleStateJson(worktreePath: string): string {
  const state = {
    version: 1,
    updated_at: "2025-06-03T14:22:07.481920311Z",
    worktrees: [
      {
        name: WORKTREE_NAME,
        path: worktreePath,
        branch: SAMPLE_WORKTREE_BRANCH,
        created_at: "2025-06-02T09:15:30+00:00",
      },
    ],
    branches: Object.fromEntries(
      SAMPLE_BRANCHES.map((b, i) => [
        b.name,
        { branch: b.name, jira_issue: b.jira, github_pr: b.pr, created_at: `2025-06-0${i + 1}T10:00:00+00:00` },
      ]),
    ),
    dependencies: SAMPLE_BRANCHES.map((b, i) => ({
      id: IDS[i],
      child: b.name,
      parent: b.parent,
      created_at: `2025-06-0${i + 1}T10:00:01.204518Z`,
    })),
    root_branches: [
      {
        id: "5e3b1d9c-7a2f-4c8e-b1d6-9f4a2c7e3b10",
        branch: "main",
        is_default: true,
        created_at: "2025-06-01T09:58:44Z",
      },
    ],
  };
  return JSON.stringify(state, null, 2);
}

/** The sample repository's main checkout, built under `dir` (where HOME already points) with the git CLI. */
async function buildSampleRepo(git: string, dir: string): Promise<Result<string, string>> {
  const root = join(dir, "shop");
  const worktree = join(dir, "shop-worktrees", WORKTREE_NAME);
  const run = (...args: string[]) => runGit(git, root, args);
  const commit = async (file: string, text: string, message: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
    const added = await run("add", "--", file);
    return added.ok ? run("commit", "-q", "--no-verify", "-m", message) : added;
  };
  mkdirSync(root, { recursive: true });
  const steps = [
    () => run("init", "-q"),
    // `init -b` needs git 2.28; this works with any git.
    () => run("symbolic-ref", "HEAD", "refs/heads/main"),
    () => commit("README.md", "# shop\n", "Initial commit"),
    ...SAMPLE_BRANCHES.flatMap((branch) => [
      () => run("checkout", "-q", "-b", branch.name, branch.parent),
      () => commit(branch.file, `// ${branch.message}\n`, branch.message),
    ]),
    () => run("checkout", "-q", SAMPLE_CURRENT),
    () => run("worktree", "add", "-q", worktree, SAMPLE_WORKTREE_BRANCH),
  ];
  for (const step of steps) {
    const done = await step();
    if (!done.ok) return done;
  }
  mkdirSync(join(root, ".twig"));
  writeFileSync(join(root, ".twig", ".gitignore"), "*\n");
  writeFileSync(join(root, ".twig", "state.json"), sampleStateJson(worktree));
  return ok(root);
}

/** The user's environment without GIT_* (a GIT_DIR would point git elsewhere), with a throwaway identity. */
async function runGit(git: string, cwd: string, args: string[]): Promise<Result<void, string>> {
  const env: Record<string, string | undefined> = { GIT_CONFIG_NOSYSTEM: "1" };
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
  for (const who of ["AUTHOR", "COMMITTER"]) {
    Object.assign(env, { [`GIT_${who}_NAME`]: "Alice Example", [`GIT_${who}_EMAIL`]: "alice@example.com" });
    env[`GIT_${who}_DATE`] = "2025-06-01T10:00:00Z";
  }
  const proc = Bun.spawn([git, ...args], { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code === 0) return ok(undefined);
  return err(`git ${args.join(" ")} failed (exit ${code}): ${stderr.trim().slice(0, 500)}`);
}

/** What an assistant asks first in a repository, in the order it usually asks; the stack from its top. */
const DEMO_CALLS: ReadonlyArray<{ name: string; args: Record<string, string> }> = [
  { name: "get_current_branch", args: {} },
  { name: "get_branch_stack", args: { branch: SAMPLE_WORKTREE_BRANCH } },
  { name: "get_branch_tree", args: {} },
  { name: "get_stack_status", args: { branch: SAMPLE_WORKTREE_BRANCH } },
];

/** `twig-mcp demo`: an assistant's first answers, on a throwaway repository removed at the end (Ctrl-C, error too). */
export async function runDemo(options: DemoOptions): Promise<number> {
  const git = Bun.which("git");
  if (git === null) {
    return writeErr(
      "error: twig-mcp demo builds its sample repository with git, and git is not on PATH.\n" +
        "Install git (https://git-scm.com/downloads), then run 'twig-mcp demo' again.\n",
      1,
    );
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-demo-")));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await showDemo(git, dir, options);
  } finally {
    // With --keep the demo ends only by a signal, so this runs when it finished or failed.
    cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function showDemo(git: string, dir: string, options: DemoOptions): Promise<number> {
  // Everything twig-mcp and git look up under HOME, inside the throwaway directory.
  const home = join(dir, "home");
  const xdg = {
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  for (const path of Object.values(xdg)) mkdirSync(path, { recursive: true });
  Object.assign(process.env, { HOME: home, USERPROFILE: home, ...xdg });
  const sample = await buildSampleRepo(git, dir);
  if (!sample.ok) return writeErr(`error: could not build the sample repository: ${sample.error}\n`, 1);
  await writeOut(
    `twig-mcp demo: a sample repository with two stacks (Jira keys, PR numbers, a linked worktree) in\n  ${sample.value}\n` +
      "No twig, network or credentials needed; your own repositories and twig files are not read.\n",
  );

  const ctx = await createRuntimeContext({ repo: sample.value, verbosity: options.verbosity });
  if (ctx === null) return 1;
  const registry = createToolRegistry(new Set(["github", "jira"]));
  for (const { name, args } of DEMO_CALLS) {
    const tool = registry.get(name);
    if (tool === undefined) continue;
    const data = toolData(await registry.call(tool, args, ctx, new AbortController().signal));
    if (!data.ok) return writeErr(`error: ${name} answered: ${data.error.message}\n`, 1);
    const called = [name, ...Object.entries(args).map(([key, value]) => `${key}=${value}`)].join(" ");
    await writeOut(`\n── What an assistant sees from ${called} ──\n${describeData(name, data.value)}`);
  }

  // A client keeps the path it is registered with: from a clone (its dist/, or the source), install first.
  const fromSource = !/^twig-mcp(\.exe)?$/i.test(basename(process.execPath));
  const inClone = fromSource || /[\\/]dist[\\/]/.test(process.execPath);
  const install = fromSource
    ? "bun run build && mkdir -p ~/.local/bin && cp dist/twig-mcp ~/.local/bin/"
    : `mkdir -p ~/.local/bin && cp ${shellQuote(process.execPath, process.platform)} ~/.local/bin/`;
  await writeOut(
    (inClone && !twigMcpOnPath().same
      ? "\nNext: put twig-mcp where it stays (a client keeps the path it is registered with), then register it\n" +
        `with your assistant (it then serves the repository it is started in):\n  ${install}\n  ~/.local/bin/twig-mcp config claude-code\n`
      : `\nNext: register twig-mcp with your assistant (it then serves the repository it is started in):\n  ${typedCommand(["config", "claude-code"])}\n`) +
      `  (or ${CLIENTS.filter((c) => c !== "claude-code").join(", ")}; add --write to edit the client's file)\n`,
  );
  if (!options.keep) return 0;
  await writeOut(
    `\nThe sample repository stays until you press Ctrl-C. Try, in another terminal:\n  cd ${sample.value} && twig-mcp call list_branches\n`,
  );
  // The signal handlers end the process; the timer only keeps it alive until then.
  setInterval(() => {}, 1 << 30);
  return new Promise<number>(() => {});
}

function describeData(name: string, data: Record<string, unknown>): string {
  // The tree's nodes repeat what its drawing shows; the drawing is what a person wants to see.
  if (name === "get_branch_tree" && typeof data.tree_text === "string") {
    return `${data.tree_text.replace(/\n?$/, "\n")}(the reply also lists the tree as nodes)\n`;
  }
  // Likewise the stack's lines: one per branch, what a standup needs; its entries hold the fields.
  if (name === "get_stack_status" && Array.isArray(data.lines)) {
    return `${[data.summary, ...data.lines].join("\n")}\n(the reply also lists each branch's commits, PR and Jira fields; with GitHub and Jira configured, its PR state, review, CI and why it is blocked)\n`;
  }
  return renderToolData(data);
}
