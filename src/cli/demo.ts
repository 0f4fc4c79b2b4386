import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLIENTS, type DemoOptions } from "./args.ts";
import { typedCommand } from "./config/self-command.ts";
import { buildSampleRepo, SAMPLE_WORKTREE_BRANCH } from "./demo/sample-repo.ts";
import { renderToolData, toolData, writeErr, writeOut } from "./output.ts";
import { createRuntimeContext, createToolRegistry } from "./runtime.ts";

/** What an assistant asks first in a repository, in the order it usually asks; the stack from its top. */
const DEMO_CALLS: ReadonlyArray<{ name: string; args: Record<string, string> }> = [
  { name: "get_current_branch", args: {} },
  { name: "get_branch_stack", args: { branch: SAMPLE_WORKTREE_BRANCH } },
  { name: "get_branch_tree", args: {} },
  { name: "get_stack_status", args: { branch: SAMPLE_WORKTREE_BRANCH } },
];

/**
 * `twig-mcp demo`: the first answers an assistant gets, on a throwaway repository removed at the
 * end, on Ctrl-C and on error too. HOME points into it (the user's files are never read); GitHub
 * and Jira tools are left out (no network, no credential).
 */
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
  const home = join(dir, "home");
  isolateHome(home);
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

  await writeOut(
    "\nNext: register twig-mcp with your assistant (it then serves the repository it is started in):\n" +
      `  ${typedCommand(["config", "claude-code"])}\n` +
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

/** Everything twig-mcp and git look up under HOME, inside the throwaway directory. */
function isolateHome(home: string): void {
  const xdg = {
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  for (const path of Object.values(xdg)) mkdirSync(path, { recursive: true });
  Object.assign(process.env, { HOME: home, USERPROFILE: home, ...xdg });
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
