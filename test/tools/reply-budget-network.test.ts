import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { githubTools, jiraTools } from "../../src/tools/all.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { cleanupTemp, makeContext, TOKEN } from "../github/helpers.ts";
import {
  API_TOKEN,
  BASIC_AUTH,
  EMAIL,
  type JiraTestContext,
  jiraContext,
  never,
  recordingSleep,
} from "../jira/helpers.ts";
import { checkRunPayload, FakeGitHub, reviewPayload } from "../support/fake-github.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";

// The default budget: 20,000 tokens by the budget's estimate, for the text envelope and structuredContent alike.
const BUDGET_BYTES = 60_000;
const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

let github: FakeGitHub;
let jira: FakeJira;
const jiraContexts: JiraTestContext[] = [];

beforeAll(async () => {
  github = await FakeGitHub.start({ token: TOKEN });
  jira = FakeJira.start({ deployment: "cloud", expectedAuthorization: BASIC_AUTH, me: USERS.alice });
});
afterAll(async () => {
  await github.stop();
  await jira.stop();
  for (const made of jiraContexts.splice(0)) made.cleanup();
  cleanupTemp();
});
afterEach(async () => {
  await github.settled();
  github.reset();
  github.repos.clear();
});

async function callWithin(tools: ToolDefinition[], name: string, args: Record<string, unknown>, ctx: ServiceContext) {
  const registry = new ToolRegistry(tools, new Set());
  const tool = registry.get(name) as ToolDefinition;
  const result = await registry.call(tool, args, ctx, never());
  const text = result.content[0]?.text ?? "";
  expect(result.isError).toBe(false);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BUDGET_BYTES);
  expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(BUDGET_BYTES);
  // What a strict client checks: the reply still validates against the tool's schema.
  expect(v.safeParse(tool.output, result.structuredContent).success).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

function githubContext() {
  return makeContext({ env: { GITHUB_API_URL: github.url, GH_TOKEN: TOKEN } }).ctx;
}

describe("get_pr_status on a PR with 400 check runs and 300 reviews", () => {
  test("stays within the budget, lists every failing and pending check, and keeps the summary", async () => {
    github.addPull({ owner: "octo", repo: "r", number: 7, headSha: SHA });
    const data = github.repo("octo", "r");
    data.reviews.set(
      7,
      Array.from({ length: 300 }, (_, i) =>
        reviewPayload({ id: i + 1, login: `reviewer-${i % 40}`, state: i % 7 === 0 ? "APPROVED" : "COMMENTED" }),
      ),
    );
    const outcome = (i: number) => (i % 50 === 3 ? "failure" : i % 40 === 5 ? "pending" : "success");
    data.checkRuns.set(
      SHA,
      Array.from({ length: 400 }, (_, i) =>
        outcome(i) === "pending"
          ? checkRunPayload({
              id: i + 1,
              name: `integration / shard ${i} (ubuntu-latest, node 22)`,
              status: "queued",
              startedAt: null,
            })
          : checkRunPayload({
              id: i + 1,
              name: `integration / shard ${i} (ubuntu-latest, node 22)`,
              conclusion: outcome(i),
            }),
      ),
    );
    const failing = Array.from({ length: 400 }, (_, i) => i).filter((i) => outcome(i) === "failure");
    const pending = Array.from({ length: 400 }, (_, i) => i).filter((i) => outcome(i) === "pending");

    const status = await callWithin(
      githubTools,
      "get_pr_status",
      { pr_number: 7, owner: "octo", repo: "r" },
      githubContext(),
    );
    expect(status.truncated).toBe(true);
    const checks = status.checks as Array<{ name: string; status: string; conclusion: string | null }>;
    const names = new Set(checks.map((check) => check.name));
    for (const i of [...failing, ...pending])
      expect(names).toContain(`integration / shard ${i} (ubuntu-latest, node 22)`);
    // Passing checks are listed only while they fit: some were left out, and the count says how many.
    const omitted = status.omitted as { checks: number; reviews: number; statuses: number };
    expect(omitted.checks).toBeGreaterThan(0);
    expect(checks.length + omitted.checks).toBe(400);
    expect((status.reviews as unknown[]).length + omitted.reviews).toBe(300);
    // GitHub's order is kept among what is listed.
    const shard = (name: string) => Number(/shard (\d+)/.exec(name)?.[1]);
    expect(checks.map((c) => shard(c.name))).toEqual([...checks.map((c) => shard(c.name))].sort((a, b) => a - b));
    const summary = status.summary as { checks: Record<string, number>; verdict: string };
    expect(summary.checks).toEqual({
      total: 400,
      passing: 400 - failing.length - pending.length,
      failing: failing.length,
      pending: pending.length,
    });
    expect(summary.verdict).toBe("failing");
    expect(status.hint).toContain("every failing and pending one is listed");
  });

  test("list_pull_requests cuts 300 PRs with long bodies to what fits, with has_more", async () => {
    for (let n = 1; n <= 300; n++) {
      github.addPull({ owner: "octo", repo: "r", number: n, body: `${"A long description. ".repeat(40)}#${n}` });
    }
    const list = await callWithin(
      githubTools,
      "list_pull_requests",
      { owner: "octo", repo: "r", limit: 300 },
      githubContext(),
    );
    const pulls = list.pull_requests as unknown[];
    expect(pulls.length).toBeGreaterThan(0);
    expect(pulls.length).toBeLessThan(300);
    expect(list.has_more).toBe(true);
    expect(list.truncated).toBe(true);
    expect(list.omitted).toEqual({ pull_requests: 300 - pulls.length });
  });
});

describe("Jira answers over the budget", () => {
  function jiraCtx(): ServiceContext {
    const made = jiraContext({
      env: { JIRA_HOST: jira.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN },
      client: recordingSleep().options,
    });
    jiraContexts.push(made);
    return made.ctx;
  }

  test("a 1 MB description is rendered only to its cut, and says so", async () => {
    // Multi-byte text: 20,000 characters of it are more than the budget's bytes.
    const paragraph = "Überprüfung der Währungsumrechnung — 検証ステップ 🚀 ";
    const long = paragraph.repeat(Math.ceil(1_000_000 / paragraph.length));
    jira.addIssues({
      key: "SHOP-901",
      summary: "Huge",
      adf: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: long }] }] },
    });
    const issue = await callWithin(jiraTools, "get_jira_issue", { issue_key: "SHOP-901" }, jiraCtx());
    expect(issue.truncated).toBe(true);
    // Rendering stopped at the cut, so the whole length is not known.
    expect(issue.description_length).toBeUndefined();
    expect((issue.description as string).length).toBeLessThan(20_002);
    expect(long.startsWith((issue.description as string).slice(0, 1000))).toBe(true);
    expect(issue.hint).toContain("characters");
  });

  test("list_jira_issues cuts its list on top of its own limit", async () => {
    const text = "Steps to reproduce ".repeat(60);
    for (let i = 0; i < 100; i++) {
      jira.addIssues({
        key: `BIG-${i + 1}`,
        summary: `Issue ${i}`,
        adf: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] },
        updated: `2025-05-01T10:00:${String(i % 60).padStart(2, "0")}.000+0000`,
      });
    }
    const list = await callWithin(jiraTools, "list_jira_issues", { project: "BIG", limit: 100 }, jiraCtx());
    const issues = list.issues as unknown[];
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.length).toBeLessThan(100);
    expect(list.has_more).toBe(true);
    expect(list.omitted).toEqual({ issues: 100 - issues.length });
  });
});
