/**
 * Generates a repository with many local branches and a matching `.twig/state.json`, fast: the
 * git CLI makes the repository and its one commit, and the branches are written straight into
 * `packed-refs` and loose ref files (every branch points at that commit).
 *
 * Shape for `branches: N` (N ≥ 20):
 *   - 4 roots (`main`, the default, `develop`, two release branches), all twig roots;
 *   - the others in dependency chains of up to 8 (`devNN/feat-…`), each chain hanging from a root,
 *     with an occasional second parent (a diamond) and 10 % of the branches not tracked by twig;
 *   - Jira keys on 60 % and PR numbers on 40 % of the tracked branches;
 *   - refs 75 % packed, 25 % loose, some of the loose ones also (stale) in packed-refs;
 *   - HEAD on the deepest branch of a chain in the middle; one linked git worktree recorded by
 *     twig, and one stale twig worktree record.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const ROOTS = ["main", "develop", "release/2025.10", "release/2025.11"] as const;
const CHAIN_LENGTH = 8;
const WORDS = ["auth", "billing", "search", "cache", "api", "ui", "docs", "perf", "sync", "export", "audit"];
const STAMP = "2025-06-01T10:00:00+00:00";

export interface GeneratedRepo {
  /** Canonical path of the work tree. */
  root: string;
  /** The temp dir holding the repository and its linked worktree. */
  sandbox: string;
  /** Every local branch, sorted by refname (byte order). */
  branches: string[];
  /** Branches with a record in `.twig/state.json` (the roots have none, as in twig). */
  tracked: string[];
  /** The checked-out branch. */
  current: string;
  /** A tracked branch in the middle of a chain (for per-branch tools). */
  sample: string;
  commit: string;
  packedRefs: number;
  looseRefs: number;
  cleanup(): void;
}

export interface RepoOptions {
  branches: number;
  /** Parent of the sandbox; the OS temp dir by default. */
  parentDir?: string;
}

export interface Plan {
  name: string;
  parents: string[];
  root: boolean;
  /** Has a record and dependencies in the state file. */
  tracked: boolean;
  depth: number;
}

/** The branches, their parents and twig tracking, before anything is written. Pure. */
export function planBranches(count: number): Plan[] {
  if (!Number.isInteger(count) || count < 20) throw new RangeError(`need at least 20 branches, got ${count}`);
  const plans: Plan[] = ROOTS.map((name) => ({ name, parents: [], root: true, tracked: false, depth: 0 }));
  let previous = "";
  for (let i = 0; i < count - ROOTS.length; i++) {
    const depth = i % CHAIN_LENGTH;
    const chain = Math.floor(i / CHAIN_LENGTH);
    const name = `dev${String(chain % 23).padStart(2, "0")}/feat-${i}-${WORDS[i % WORDS.length]}`;
    // Most chains start at main; every fifth at another root.
    const root = chain % 5 === 4 ? (ROOTS[1 + (chain % 3)] as string) : "main";
    const parents = depth === 0 ? [root] : [previous];
    if (depth === 3 && chain % 12 === 5) parents.push(root === "main" ? "develop" : "main");
    plans.push({ name, parents, root: false, tracked: i % 10 !== 9, depth });
    previous = name;
  }
  return plans;
}

/** Writes the repository described by `planBranches(options.branches)` into a new temp dir. */
export function generateRepo(options: RepoOptions): GeneratedRepo {
  const plans = planBranches(options.branches);
  const sandbox = realpathSync(mkdtempSync(join(options.parentDir ?? tmpdir(), "twig-mcp-bench-")));
  const root = join(sandbox, "repo");
  const git = (cwd: string, ...args: string[]): string => {
    const result = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv(sandbox), stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) {
      throw new Error(`git ${args.join(" ")} exited ${result.exitCode}: ${result.stderr.toString().trim()}`);
    }
    return result.stdout.toString().trim();
  };
  try {
    git(sandbox, "init", "-q", "-b", "main", root);
    git(root, "commit", "-q", "--allow-empty", "-m", "initial");
    const commit = git(root, "rev-parse", "HEAD");

    const names = plans.map((plan) => plan.name);
    const loose = names.filter((_, i) => i % 4 === 1 || i === 0);
    const packed = names.filter((_, i) => i % 4 !== 1 || i % 8 === 1);
    const refLines = [...packed]
      .map((name) => `refs/heads/${name}`)
      .sort()
      .map((ref) => `${commit} ${ref}\n`);
    writeFileSync(
      join(root, ".git", "packed-refs"),
      `# pack-refs with: peeled fully-peeled sorted \n${refLines.join("")}`,
    );
    for (const name of loose) {
      const path = join(root, ".git", "refs", "heads", name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${commit}\n`);
    }

    // A full chain in the middle whose deepest and middle branches are tracked.
    const chains = Math.floor((plans.length - ROOTS.length) / CHAIN_LENGTH);
    let middleChain = Math.floor(chains / 2);
    const chainIndex = (depth: number) => ROOTS.length + middleChain * CHAIN_LENGTH + depth;
    while (!(plans[chainIndex(CHAIN_LENGTH - 1)]?.tracked && plans[chainIndex(3)]?.tracked)) middleChain++;
    const current = plans[chainIndex(CHAIN_LENGTH - 1)] as Plan;
    const sample = plans[chainIndex(3)] as Plan;
    writeFileSync(join(root, ".git", "HEAD"), `ref: refs/heads/${current.name}\n`);

    // A linked worktree on another branch of the same chain, which twig records too.
    const worktreeBranch = (plans[chainIndex(1)] as Plan).name;
    const worktreePath = join(sandbox, "wt-linked");
    git(root, "worktree", "add", "-q", worktreePath, worktreeBranch);

    mkdirSync(join(root, ".twig"), { recursive: true });
    writeFileSync(
      join(root, ".twig", "state.json"),
      JSON.stringify(twigState(plans, worktreeBranch, worktreePath, sandbox), null, 2),
    );

    return {
      root,
      sandbox,
      branches: [...names].sort(),
      tracked: plans.filter((plan) => plan.tracked).map((plan) => plan.name),
      current: current.name,
      sample: sample.name,
      commit,
      packedRefs: packed.length,
      looseRefs: loose.length,
      cleanup: () => rmSync(sandbox, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(sandbox, { recursive: true, force: true });
    throw error;
  }
}

function twigState(plans: readonly Plan[], worktreeBranch: string, worktreePath: string, sandbox: string) {
  const branches: Record<string, unknown> = {};
  const dependencies: unknown[] = [];
  let n = 0;
  for (const plan of plans) {
    if (!plan.tracked) continue;
    n++;
    branches[plan.name] = {
      branch: plan.name,
      jira_issue: n % 5 < 3 ? `PROJ-${1000 + n}` : null,
      github_pr: n % 5 >= 3 ? n : null,
      created_at: STAMP,
    };
    for (const parent of plan.parents) {
      dependencies.push({ id: uuid(dependencies.length), child: plan.name, parent, created_at: STAMP });
    }
  }
  return {
    version: 1,
    updated_at: STAMP,
    worktrees: [
      { name: worktreeBranch.replaceAll("/", "-"), path: worktreePath, branch: worktreeBranch, created_at: STAMP },
      { name: "gone", path: join(sandbox, "wt-gone"), branch: "develop", created_at: STAMP },
    ],
    branches,
    dependencies,
    root_branches: ROOTS.map((branch, i) => ({
      id: uuid(1_000_000 + i),
      branch,
      is_default: branch === "main",
      created_at: STAMP,
    })),
  };
}

/** A deterministic UUID-shaped id. */
function uuid(n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `00000000-0000-4000-8000-${hex}`;
}

/** git with no user or system configuration and a fixed identity and date. */
export function gitEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LC_ALL: "C",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CEILING_DIRECTORIES: dirname(home),
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_AUTHOR_DATE: "2025-06-01T10:00:00Z",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
    GIT_COMMITTER_DATE: "2025-06-01T10:00:00Z",
  };
}
