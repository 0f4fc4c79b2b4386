import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import {
  SAMPLE_BRANCHES,
  SAMPLE_CURRENT,
  SAMPLE_REPO_NAME,
  SAMPLE_WORKTREE_BRANCH,
  sampleStateJson,
  worktreeName,
} from "./sample-state.ts";

/**
 * Builds the sample repository under `dir` with the git CLI (the demo is not the serving path) and
 * returns its main checkout; `home` stands in for HOME so the user's git configuration plays no part.
 */
export async function buildSampleRepo(git: string, dir: string, home: string): Promise<Result<string, string>> {
  const root = join(dir, SAMPLE_REPO_NAME);
  const worktree = join(dir, `${SAMPLE_REPO_NAME}-worktrees`, worktreeName(SAMPLE_WORKTREE_BRANCH));
  const run = (...args: string[]) => runGit(git, root, home, args);
  await mkdir(root, { recursive: true });
  const steps: Array<() => Promise<Result<void, string>>> = [
    () => run("init", "-q"),
    // `init -b` needs git 2.28; this works with any git.
    () => run("symbolic-ref", "HEAD", "refs/heads/main"),
    () => commitFile(run, root, "README.md", "# shop\n", "Initial commit"),
  ];
  for (const branch of SAMPLE_BRANCHES) {
    steps.push(() => run("checkout", "-q", "-b", branch.name, branch.parent));
    steps.push(() => commitFile(run, root, branch.file, `// ${branch.message}\n`, branch.message));
  }
  steps.push(() => run("checkout", "-q", SAMPLE_CURRENT));
  steps.push(() => run("worktree", "add", "-q", worktree, SAMPLE_WORKTREE_BRANCH));
  for (const step of steps) {
    const done = await step();
    if (!done.ok) return done;
  }
  await mkdir(join(root, ".twig"));
  await writeFile(join(root, ".twig", ".gitignore"), "*\n");
  await writeFile(join(root, ".twig", "state.json"), sampleStateJson(worktree));
  return ok(root);
}

type Git = (...args: string[]) => Promise<Result<void, string>>;

async function commitFile(
  run: Git,
  root: string,
  file: string,
  text: string,
  message: string,
): Promise<Result<void, string>> {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), text);
  const added = await run("add", "--", file);
  return added.ok ? run("commit", "-q", "--no-verify", "-m", message) : added;
}

async function runGit(git: string, cwd: string, home: string, args: string[]): Promise<Result<void, string>> {
  const proc = Bun.spawn([git, ...args], { cwd, env: gitEnv(home), stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code === 0) return ok(undefined);
  return err(`git ${args.join(" ")} failed (exit ${code}): ${stderr.trim().slice(0, 500)}`);
}

/** The user's environment without GIT_* (a GIT_DIR would point git elsewhere), with a throwaway identity. */
function gitEnv(home: string): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  const when = "2025-06-01T10:00:00Z";
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Alice Example",
    GIT_AUTHOR_EMAIL: "alice@example.com",
    GIT_COMMITTER_NAME: "Alice Example",
    GIT_COMMITTER_EMAIL: "alice@example.com",
    GIT_AUTHOR_DATE: when,
    GIT_COMMITTER_DATE: when,
  };
}
