import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { discoverRepository, type RepoLocation } from "../../src/git/discover.ts";
import { type ChangeKind, MAX_WATCHED_REF_DIRS, RepoWatcher } from "../../src/mcp/resource-watch.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());

async function location(): Promise<RepoLocation> {
  const found = await discoverRepository(repo.root, new CachedFileReader());
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
}

/** A watcher whose next report (or warning) can be awaited. */
async function watching() {
  let wake: (kinds: ReadonlySet<ChangeKind>) => void = () => {};
  const warnings: string[] = [];
  const watcher = new RepoWatcher(
    await location(),
    repo.root,
    (kinds) => wake(kinds),
    (message) => warnings.push(message),
  );
  const next = () => new Promise<ReadonlySet<ChangeKind>>((resolve) => (wake = resolve));
  return { watcher, warnings, next };
}

describe("RepoWatcher on refs/heads", () => {
  test("a branch in a namespace made after subscribing is noticed, and so is one nested deeper in it", async () => {
    const { watcher, next } = await watching();
    try {
      let changed = next();
      repo.git("branch", "team/first");
      expect(await changed).toContain("git");
      changed = next();
      repo.git("branch", "team/nested/second");
      expect(await changed).toContain("git");
      changed = next();
      repo.git("branch", "-D", "team/nested/second");
      expect(await changed).toContain("git");
    } finally {
      watcher.close();
    }
  }, 30_000);

  // Elsewhere the OS watches the whole tree with one handle, and there is no cap.
  test.skipIf(process.platform !== "linux")(
    `past ${MAX_WATCHED_REF_DIRS} directories it warns instead of watching more, and links are not followed`,
    async () => {
      const heads = repo.path(".git", "refs", "heads");
      for (let i = 0; i < MAX_WATCHED_REF_DIRS + 20; i++) mkdirSync(join(heads, `many-${i}`));
      symlinkSync(".", join(heads, "loop"));
      const { watcher, warnings } = await watching();
      watcher.close();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`more than ${MAX_WATCHED_REF_DIRS} directories`);
    },
  );
});
