/**
 * get_stack_status's reply as sent (the text of the tool result), measured on stacks with every kind of news a
 * branch can carry: PRs blocked by reviews and failing CI, a PR head behind the local tip, restacks with their
 * pushes, a merged parent. Three branches stay within 5,000 B; scope "all" over ten branches in three stacks within
 * 11,000 B.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { allTools } from "../../src/tools/all.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { cleanupTemp, git, makeContext, TOKEN } from "../github/helpers.ts";
import { checkRunPayload, reviewPayload } from "../support/fake-github.ts";
import { addShopPull, shopRepo } from "../support/shop-stack.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";

const github = useFakeGitHub({ token: TOKEN });
afterAll(cleanupTemp);
// Ten branches of commits and pushes made with git: seconds on a busy machine.
setDefaultTimeout(60_000);

const REVIEW =
  "The retry replays the expired token; refresh it first and add a test for a token that expires mid-request.";

/**
 * Stacks of `feature/stack<s>-part<n>` branches, each with a PR (#100+i) whose head is the commit before the local
 * tip: in turn blocked (changes requested, CI failing), waiting (review required, CI pending) and a draft; main
 * moves on, so every branch is restacked and pushed.
 */
function repository(stacks: readonly number[]): string {
  const names = stacks.flatMap((size, s) => Array.from({ length: size }, (_, n) => `feature/stack${s}-part${n}`));
  const parentOf = (name: string) => {
    const n = Number(name.slice(name.lastIndexOf("part") + 4));
    return n === 0 ? "main" : name.replace(/part\d+$/, `part${n - 1}`);
  };
  const repo = shopRepo(
    Object.fromEntries(names.map((branch, i) => [branch, { parent: parentOf(branch), pr: 100 + i }])),
  );
  const data = github.repo("acme", "shop");
  for (const [i, branch] of names.entries()) {
    git(repo, "checkout", "-q", "-b", branch, parentOf(branch));
    for (const k of [1, 2]) {
      writeFileSync(join(repo, `${i}-${k}.txt`), `${k}\n`);
      git(repo, "add", ".");
      git(repo, "commit", "-q", "-m", `Part ${i}, step ${k}`);
    }
    git(repo, "push", "-q", ".", `${branch}:refs/remotes/origin/${branch}`);
    const sha = git(repo, "rev-parse", "HEAD~1");
    const [base, draft] = [parentOf(branch), i % 3 === 2];
    addShopPull(github, { number: 100 + i, head: branch, base, headSha: sha, draft });
    if (i % 3 === 0) {
      data.reviews.set(100 + i, [
        { ...reviewPayload({ id: i, login: "carol", state: "CHANGES_REQUESTED" }), body: REVIEW },
      ]);
      const output = { title: "2 failed, 148 passed", summary: "FAILED tests/test_oauth.py::test_refresh", text: null };
      data.checkRuns.set(sha, [
        { ...checkRunPayload({ id: 1000 + i, name: "pytest", conclusion: "failure" }), output },
      ]);
    } else if (i % 3 === 1) {
      data.checkRuns.set(sha, [
        checkRunPayload({ id: 1000 + i, name: "pytest", status: "in_progress", conclusion: null }),
      ]);
    }
  }
  git(repo, "checkout", "-q", "main");
  writeFileSync(join(repo, "main.txt"), "moved on\n");
  git(repo, "add", "main.txt");
  git(repo, "commit", "-q", "-m", "Main moves on");
  git(repo, "checkout", "-q", names[0] as string);
  return repo;
}

async function replyText(repo: string, args: Record<string, unknown>): Promise<string> {
  const registry = new ToolRegistry(allTools, new Set());
  const tool = registry.get("get_stack_status") as ToolDefinition;
  const { ctx } = makeContext({ env: github.env(TOKEN), repo: ok(repo) });
  const result = await registry.call(tool, args, ctx, new AbortController().signal);
  expect(result.isError).toBe(false);
  return result.content[0]?.text ?? "";
}

test("a three-branch stack, all to restack and push: at most 5,000 B", async () => {
  const text = await replyText(repository([3]), {});
  const reply = JSON.parse(text).data as { branches: unknown[]; next_steps: Array<{ command: string }> };
  expect(reply.branches).toHaveLength(3);
  // Every branch has its step (restack, push), so the reply measured is a full one.
  expect(reply.next_steps.filter((step) => step.command.includes("--force-with-lease"))).toHaveLength(3);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5_000);
});

test('scope "all" over ten branches in three stacks: at most 11,000 B', async () => {
  const text = await replyText(repository([4, 3, 3]), { scope: "all" });
  const reply = JSON.parse(text).data as { branches: unknown[] };
  expect(reply.branches).toHaveLength(10);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(11_000);
});
