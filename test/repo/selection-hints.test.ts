import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err } from "../../src/core/result.ts";
import { ExposedRepoSelector } from "../../src/repo/selection.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const home = mkdtempSync(join(tmpdir(), "twig-mcp-hints-"));
const unregistered = makeRepo({ commit: true });
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  unregistered.cleanup();
});

test("outside any repository with no registry, the hint offers only what the selector then accepts", async () => {
  const noRepo = err({ code: "no_repo", message: "not in a repository" } as const);
  const ctx = createTestContext({ home, dirs: twigDirs({}, "linux", home), repo: noRepo });
  const selector = new ExposedRepoSelector(ctx, noRepo, false);
  const named = await selector.select("shop");
  if (named.ok) throw new Error("expected no such repository");
  expect(named.error.hint).toContain("twig git add <path>");
  expect(named.error.hint).toContain("client root");
  // An absolute path to an unregistered repository is refused, so the hint must not offer one.
  expect(named.error.hint).not.toContain("absolute path");
  const path = await selector.select(unregistered.root);
  expect(path.ok).toBe(false);
  // Once opened as a client root, the same path is accepted.
  await selector.setRoots([unregistered.root]);
  expect((await selector.select(unregistered.root)).ok).toBe(true);
});
