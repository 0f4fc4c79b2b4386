/**
 * What get_stack_status and get_branch_context say to do next, on real repositories made with git: a squash-merged
 * parent, children without PRs, a bottom behind main, unpushed and never-pushed branches, a branch twig tracks and git
 * deleted, untracked branches, a linked worktree. Counts are git's own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { getBranchContextTool } from "../../src/tools/get-branch-context.ts";
import { getStackStatusTool } from "../../src/tools/get-stack-status.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import { cleanupTemp, git, makeContext, TOKEN, tempDir } from "../github/helpers.ts";
import { FakeGitHub } from "../support/fake-github.ts";
import { addShopPull, shopRepo } from "../support/shop-stack.ts";

let github: FakeGitHub;
let repo: string;
let worktree: string;
let oldC: string;

beforeAll(async () => {
  github = await FakeGitHub.start({ token: TOKEN });
  // `d` is tracked but deleted from git; `scratch` is in git but not tracked.
  repo = shopRepo({
    a: { parent: "main", pr: 1 },
    b: { parent: "a" },
    c: { parent: "b", pr: 3 },
    d: { parent: "c" },
    e: { parent: "d" },
    x: { parent: "main" },
  });
  const commit = (message: string) => git(repo, "commit", "-q", "--allow-empty", "-m", message);
  git(repo, "checkout", "-q", "-b", "x");
  commit("x1");
  git(repo, "checkout", "-q", "main");
  git(repo, "checkout", "-q", "-b", "a");
  git(repo, "commit", "-q", "--allow-empty", "-m", "a1");
  git(repo, "checkout", "-q", "-b", "b");
  commit("b1");
  commit("b2");
  git(repo, "checkout", "-q", "-b", "c");
  commit("c1");
  oldC = git(repo, "rev-parse", "c");
  // Pushed once, then one more commit.
  git(repo, "update-ref", "refs/remotes/origin/c", "c");
  commit("c2");
  git(repo, "checkout", "-q", "-b", "e");
  commit("e1");
  git(repo, "checkout", "-q", "main");
  git(repo, "branch", "-q", "scratch");
  // `a` squash-merged into main: a new commit on main, `a` itself unmerged in git's eyes.
  git(repo, "merge", "-q", "--squash", "a");
  commit("a (#1)");
  worktree = join(tempDir("twig-mcp-wt-"), "x");
  git(repo, "worktree", "add", "-q", worktree, "x");
  addShopPull(github, {
    number: 1,
    head: "a",
    base: "main",
    merged: true,
    state: "closed",
    headSha: git(repo, "rev-parse", "a"),
  });
  addShopPull(github, { number: 3, head: "c", base: "b", headSha: oldC });
});
afterAll(async () => {
  await github.stop();
  cleanupTemp();
});

function context(path = repo): ServiceContext {
  return makeContext({ env: github.env(TOKEN), repo: ok(path) }).ctx;
}

async function call<O extends v.GenericSchema>(
  tool: { handler: (a: never, c: ServiceContext, i: never) => Promise<unknown>; output: O },
  args: Record<string, unknown>,
  path = repo,
): Promise<v.InferOutput<O>> {
  const info = { signal: new AbortController().signal, enabled: () => true };
  const result = (await tool.handler(args as never, context(path), info as never)) as {
    ok: boolean;
    value: unknown;
    error?: unknown;
  };
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  expect(v.safeParse(tool.output, result.value).success).toBe(true);
  return result.value as v.InferOutput<O>;
}

const count = (range: string) => Number(git(repo, "rev-list", "--count", range));

describe("actions and next steps", () => {
  test("a squash-merged parent: it is cleaned up, its child without a PR moves onto main, the grandchild follows", async () => {
    const answer = await call(getStackStatusTool, { scope: "all" });
    const of = (name: string) => answer.branches.find((entry) => entry.branch === name);
    expect(of("a")?.action).toEqual({ kind: "clean_up", why: "its PR #1 is merged" });
    // Behind main after the squash, and still never "restack".
    expect(of("a")?.needs_restack).toBeUndefined();
    expect(answer.lines.find((line) => line.includes("a  #1"))).not.toContain("restack");
    expect(of("b")?.action).toEqual({ kind: "move", onto: "main", why: "its parent a is merged" });
    expect(of("c")?.action).toEqual({ kind: "follow", onto: "b", why: "its parent moves first" });
    const steps = answer.next_steps.map(({ branch, command }) => [branch, command]);
    const [a, b] = [git(repo, "rev-parse", "a"), git(repo, "rev-parse", "b")];
    // Old bases by commit id: the delete of `a` comes last, and nothing after it names it.
    expect(steps).toContainEqual([
      "b",
      `git rebase --onto main ${a} b && twig branch depend b main && twig branch remove-dep b a`,
    ]);
    expect(steps).toContainEqual(["c", `git rebase --onto b ${b} c && git push --force-with-lease origin -- c`]);
    expect(steps.slice(-2)).toEqual([
      ["a", "git branch -D -- a"],
      ["a", "twig sync --no-github --no-jira"],
    ]);
    // Parents before children.
    const order = answer.next_steps.map((step) => step.branch);
    expect(order.indexOf("b")).toBeLessThan(order.indexOf("c"));
  });

  test("a bottom behind main is restacked onto it; counts are git's", async () => {
    const answer = await call(getStackStatusTool, { scope: "all" });
    const x = answer.branches.find((entry) => entry.branch === "x");
    expect(x).toMatchObject({ ahead: count("main..x"), behind: count("x..main"), needs_restack: true });
    const behind = count("x..main");
    expect(x?.action).toEqual({
      kind: "restack",
      onto: "main",
      why: `${behind} commit${behind === 1 ? "" : "s"} behind main`,
    });
    // x is checked out in the linked worktree: it is rebased there.
    expect(answer.next_steps).toContainEqual({
      branch: "x",
      what: "restack onto main",
      why: "1 commit behind main",
      command: `git -C ${worktree} rebase main x`,
      forecast: { result: "clean" },
    });
  });

  test("unpushed commits are counted as git counts them; a never-pushed branch says there is no remote branch", async () => {
    const answer = await call(getStackStatusTool, { scope: "all" });
    const c = answer.branches.find((entry) => entry.branch === "c");
    expect(c?.push).toEqual({ remote_ref: "refs/remotes/origin/c", unpushed: count("origin/c..c"), unpulled: 0 });
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/b")).toBe("");
    expect(answer.branches.find((entry) => entry.branch === "b")?.push).toEqual({
      remote_ref: "refs/remotes/origin/b",
      missing: true,
    });
    const line = answer.lines[answer.branches.indexOf(c as (typeof answer.branches)[number])];
    expect(line).toContain("1 unpushed");
    // The PR is for the commit before: its CI and reviews are for an older commit.
    expect(c?.pr_head).toEqual({ local_ahead: count(`${oldC}..c`) });
    expect(line).toContain("PR CI/reviews lag local by 1 commit");
  });

  test("a branch twig tracks and git deleted is listed and forgotten by twig sync; its child moves onto the nearest live ancestor", async () => {
    const answer = await call(getStackStatusTool, { scope: "all" });
    const d = answer.branches.find((entry) => entry.branch === "d");
    expect(d).toMatchObject({ gone: true, action: { kind: "forget" } });
    expect(answer.next_steps.at(-1)?.command).toBe("twig sync --no-github --no-jira");
    // d's old tip is unknown (no PR, no remote-tracking ref): e is not rewritten on a guess.
    const e = answer.branches.find((entry) => entry.branch === "e");
    expect(e?.action).toMatchObject({
      kind: "move",
      onto: "c",
      why: "its parent d is gone from git; no step: its parent's old tip is unknown (no merged PR head here, no remote-tracking ref, no squash found)",
    });
    expect(answer.next_steps.find((step) => step.branch === "e")).toBeUndefined();
  });

  test("untracked branches say so and get no action", async () => {
    const answer = await call(getStackStatusTool, { scope: "all" });
    const scratch = answer.branches.find((entry) => entry.branch === "scratch");
    expect(scratch).toMatchObject({ tracked: false });
    expect(scratch?.action).toBeUndefined();
    expect(answer.branches.find((entry) => entry.branch === "b")?.tracked).toBeUndefined();
  });

  test("from a linked worktree the same stack and the same steps", async () => {
    const main = await call(getStackStatusTool, { scope: "all" });
    const linked = await call(getStackStatusTool, { scope: "all" }, worktree);
    // The same steps, each run where it must be: x in its own work tree, the rest here; twig told where its state is.
    const same = (steps: typeof main.next_steps) =>
      steps.flatMap((step) =>
        step.what === "switch back"
          ? []
          : [{ ...step, command: step.command.replace(`git -C ${worktree} `, "git ").replaceAll(` -r ${repo}`, "") }],
      );
    expect(same(linked.next_steps)).toEqual(same(main.next_steps));
    // Each work tree goes back to its own branch.
    expect(main.next_steps.find((step) => step.what === "switch back")?.command).toBe("git switch main");
    expect(linked.next_steps.find((step) => step.what === "switch back")?.command).toBe("git switch x");
    expect(linked.branches.map((entry) => entry.action)).toEqual(main.branches.map((entry) => entry.action));
  });

  test("get_branch_context: own commits newest first, children with their PRs, push state, action and steps", async () => {
    const doc = await call(getBranchContextTool, { branch: "b" });
    expect(doc.branch.commits?.map((commit) => commit.subject)).toEqual(["b2", "b1"]);
    expect(doc.branch.ahead).toBe(count("a..b"));
    expect(doc.branch.children).toEqual([{ branch: "c", pr_number: 3 }]);
    expect(doc.branch.push).toEqual({ remote_ref: "refs/remotes/origin/b", missing: true });
    expect(doc.branch.action).toEqual({ kind: "move", onto: "main", why: "its parent a is merged" });
    expect(doc.next_steps.map((step) => step.what)).toEqual([
      "move onto main",
      "switch back",
      "delete the branch",
      "tidy twig's state",
    ]);
    const c = await call(getBranchContextTool, { branch: "c" });
    expect(c.branch.pr_head).toEqual({ sha: oldC, local_ahead: 1, local_behind: 0 });
    expect(c.branch.action).toMatchObject({ kind: "follow", onto: "b" });
  });
});
