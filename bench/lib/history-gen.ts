/**
 * Writes a commit history of any shape into a repository with `git fast-import`, fast: 30,000
 * commits take about a second. Shared by the commit bench and the commit reader's property tests.
 */
import { spawnSync } from "node:child_process";

export interface HistoryCommit {
  /** Indexes of earlier commits; the first is the first parent. */
  parents: readonly number[];
  /** Committer time, seconds since the epoch. */
  time: number;
  message?: string;
}

/**
 * Imports `commits` (every parent index lower than its child's) into the repository at `dir`,
 * then points `refs/heads/<name>` at the commit `refs[name]`. Every commit is empty (the empty tree).
 */
export function importHistory(
  dir: string,
  commits: readonly HistoryCommit[],
  refs: Readonly<Record<string, number>>,
  env: Record<string, string>,
): void {
  const parts: string[] = [];
  commits.forEach((commit, index) => {
    const message = commit.message ?? `commit ${index}`;
    const [first, ...merges] = commit.parents;
    parts.push(
      "reset refs/heads/fast-import-scratch\n",
      "commit refs/heads/fast-import-scratch\n",
      `mark :${index + 1}\n`,
      `committer Bench <bench@example.com> ${commit.time} +0000\n`,
      `data ${Buffer.byteLength(message)}\n${message}\n`,
      first === undefined ? "" : `from :${first + 1}\n`,
      ...merges.map((parent) => `merge :${parent + 1}\n`),
      "\n",
    );
  });
  for (const [name, index] of Object.entries(refs)) parts.push(`reset refs/heads/${name}\nfrom :${index + 1}\n\n`);
  parts.push("reset refs/heads/fast-import-scratch\nfrom 0000000000000000000000000000000000000000\n\n");
  const result = spawnSync("git", ["fast-import", "--quiet", "--force"], { cwd: dir, env, input: parts.join("") });
  if (result.status !== 0) throw new Error(`git fast-import failed: ${result.stderr}`);
}
