import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { ok } from "../../src/core/result.ts";
import { getWorktreesTool } from "../../src/tools/get-worktrees.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());

async function worktrees(): Promise<unknown> {
  const ctx = createTestContext({
    home: repo.sandbox,
    dirs: twigDirs({}, "linux", repo.sandbox),
    repo: ok(repo.root),
  });
  const result = await createToolRegistry(new Set()).invoker(ctx, new AbortController().signal)(getWorktreesTool, {});
  if (!result?.ok) throw new Error(JSON.stringify(result));
  return result.value.worktrees;
}

describe("get_worktrees matches twig's records to live worktrees by their paths as text", () => {
  test("a trailing slash or a `..` still matches; a path through a symlink is not followed to match", async () => {
    const live = join(repo.sandbox, "wt", "feature-x");
    repo.git("worktree", "add", "-q", "-b", "feature/x", live);
    const link = join(repo.sandbox, "link-to-wt");
    symlinkSync(join(repo.sandbox, "wt"), link);
    mkdirSync(repo.path(".twig"), { recursive: true });
    writeFileSync(
      repo.path(".twig", "state.json"),
      JSON.stringify({
        version: 1,
        worktrees: [
          { name: "feature-x", path: `${repo.sandbox}/wt/../wt/feature-x/`, branch: "feature/x" },
          { name: "gone", path: join(repo.sandbox, "wt", "gone"), branch: "main" },
        ],
      }),
    );
    expect(await worktrees()).toEqual([
      { name: "feature-x", path: `${repo.sandbox}/wt/../wt/feature-x/`, branch: "feature/x", source: "twig+git" },
      { name: "gone", path: join(repo.sandbox, "wt", "gone"), branch: "main", source: "twig" },
    ]);
    // State paths are never touched (a path can name another host), so one through a link stays twig's own.
    writeFileSync(
      repo.path(".twig", "state.json"),
      JSON.stringify({
        version: 1,
        worktrees: [{ name: "feature-x", path: `${link}/feature-x`, branch: "feature/x" }],
      }),
    );
    expect(((await worktrees()) as Array<{ source: string }>).map((w) => w.source)).toEqual(["twig", "git"]);
    writeFileSync(
      repo.path(".twig", "state.json"),
      JSON.stringify({
        version: 1,
        worktrees: [
          { name: "feature-x", path: `${live}/`, branch: "feature/x" },
          { name: "gone", path: join(repo.sandbox, "wt", "gone"), branch: "main" },
        ],
      }),
    );
    // A git worktree twig does not know is listed on its own.
    const other = join(repo.sandbox, "wt", "other");
    repo.git("worktree", "add", "-q", "-b", "other", other);
    const listed = (await worktrees()) as Array<{ name: string; source: string; path: string; branch: string }>;
    expect(listed.map((w) => [w.name, w.source, w.branch])).toEqual([
      ["feature-x", "twig+git", "feature/x"],
      ["gone", "twig", "main"],
      ["other", "git", "other"],
    ]);
    expect(listed[2]?.path).toBe(realpathSync(other));
  });
});
