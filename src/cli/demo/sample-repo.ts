import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";

/**
 * The demo's sample repository: its branches, the `.twig/state.json` twig would have written for
 * them (format: twig-reference §2; fixed ids and times, so every run shows the same answers), and
 * the git commands that build it.
 *
 * Checked out in the main checkout; the last branch of the first stack lives in a linked worktree. */
const SAMPLE_CURRENT = "feature/auth";
export const SAMPLE_WORKTREE_BRANCH = "feature/auth-ui";

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

/** As twig names a worktree: every `/` replaced by `-`. */
const WORKTREE_NAME = SAMPLE_WORKTREE_BRANCH.replaceAll("/", "-");

/** The state file's text, pretty-printed as twig (serde_json) writes it: 2 spaces, no final newline. */
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

/**
 * Builds the sample repository under `dir` with the git CLI (the demo is not the serving path) and
 * returns its main checkout. HOME already points into `dir` (demo.ts), so the user's git configuration plays no part.
 */
export async function buildSampleRepo(git: string, dir: string): Promise<Result<string, string>> {
  const root = join(dir, "shop");
  const worktree = join(dir, "shop-worktrees", WORKTREE_NAME);
  const run = (...args: string[]) => runGit(git, root, args);
  const commit = async (file: string, text: string, message: string) => {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
    const added = await run("add", "--", file);
    return added.ok ? run("commit", "-q", "--no-verify", "-m", message) : added;
  };
  await mkdir(root, { recursive: true });
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
  await mkdir(join(root, ".twig"));
  await writeFile(join(root, ".twig", ".gitignore"), "*\n");
  await writeFile(join(root, ".twig", "state.json"), sampleStateJson(worktree));
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
