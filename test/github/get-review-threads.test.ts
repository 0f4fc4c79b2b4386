import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { githubTools } from "../../src/tools/all.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { type ThreadFixture, warmGitHubSchema } from "../support/fake-github-graphql.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { callTool, cleanupTemp, expectErr, expectOk, makeContext, makeRepo, stateWith, TOKEN } from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
beforeAll(() => warmGitHubSchema(), 60_000);
afterAll(cleanupTemp);

const ARGS = { pr_number: 7, owner: "octo", repo: "r" };
const HUNK = [
  "@@ -30,14 +30,16 @@ def login(request):",
  ...Array.from({ length: 11 }, (_, i) => ` line ${31 + i}`),
  "+SECRET = 'hunter2'",
].join("\n");

type Thread = {
  path: string;
  line: number | null;
  start_line?: number;
  outdated: boolean;
  resolved: boolean;
  resolved_by?: string;
  code: string[];
  comments: Array<{
    author: string;
    body: string;
    suggestion?: { start_line: number; end_line: number; lines: string[] };
  }>;
};

function seed(threads: ThreadFixture[]) {
  fake.addPull({ owner: "octo", repo: "r", number: 7, title: "Login flow" });
  const data = fake.repo("octo", "r");
  data.reviewThreads.set(7, threads);
  data.issueComments.set(
    7,
    Array.from({ length: 12 }, (_, i) => ({ author: "dave", body: `Conversation comment ${i}\n\nsecond paragraph` })),
  );
}

const REVIEW: ThreadFixture[] = [
  {
    path: "src/app/views.py",
    line: 12,
    startLine: 10,
    comments: [
      {
        author: "bob",
        body: "Simpler:\n```suggestion\nif user is None:\n    return deny()\n```\n",
        diffHunk: "@@ -8,5 +8,5 @@\n a\n b\n c",
      },
    ],
  },
  {
    path: "src/app/login.py",
    line: 42,
    comments: [
      { author: "alice", body: "The secret is hard-coded here; read it from the environment.", diffHunk: HUNK },
      { author: "carol", body: "Agreed \u202e hidden", createdAt: "2024-05-02T10:00:00Z" },
    ],
  },
  { path: "docs/a.md", line: 3, isResolved: true, resolvedBy: "alice", comments: [{ author: "bob", body: "typo" }] },
  {
    path: "src/app/login.py",
    line: null,
    originalLine: 7,
    isOutdated: true,
    comments: [{ author: null, body: "Old remark" }],
  },
];

function context() {
  return makeContext({ env: fake.env() }).ctx;
}

async function callWithin(args: Record<string, unknown>, ctx: ServiceContext, maxTokens = 20_000) {
  const registry = new ToolRegistry(githubTools, new Set(), maxTokens);
  const tool = registry.get("get_review_threads") as ToolDefinition;
  const result = await registry.call(tool, args, ctx, new AbortController().signal);
  const text = result.content[0]?.text ?? "";
  expect({ isError: result.isError, text: result.isError ? text : "" }).toEqual({ isError: false, text: "" });
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxTokens * 3);
  expect(v.safeParse(tool.output, result.structuredContent).success).toBe(true);
  return result.structuredContent as Record<string, unknown> & { threads: Thread[]; next_cursor?: string };
}

describe("get_review_threads", () => {
  test("unresolved threads in file order, with code, replies, suggestions and the conversation", async () => {
    seed(REVIEW);
    const data = expectOk(await callTool("get_review_threads", ARGS, context()));
    const threads = data.threads as Thread[];
    expect(threads.map((t) => `${t.path}:${t.line}`)).toEqual([
      "src/app/login.py:7",
      "src/app/login.py:42",
      "src/app/views.py:12",
    ]);
    const [outdated, secret, suggested] = threads as [Thread, Thread, Thread];
    expect(outdated).toMatchObject({ outdated: true, resolved: false, comments: [{ author: "ghost" }] });
    expect(secret.code).toHaveLength(8);
    expect(secret.code.at(-1)).toBe("+SECRET = 'hunter2'");
    expect(secret.comments.map((c) => c.author)).toEqual(["alice", "carol"]);
    expect(suggested).toMatchObject({ line: 12, start_line: 10 });
    expect(suggested.comments[0]?.suggestion).toEqual({
      start_line: 10,
      end_line: 12,
      lines: ["if user is None:", "    return deny()"],
    });
    expect(data.unresolved_threads).toBe(3);
    expect(data.total_threads).toBe(4);
    expect(data.lines).toEqual([
      'src/app/login.py:7 · ghost: "Old remark" outdated',
      'src/app/login.py:42 · alice: "The secret is hard-coded here; read it from the environment." (1 reply)',
      'src/app/views.py:12 · bob: "Simpler: ```suggestion if user is None: return deny() ```" suggestion',
    ]);
    const conversation = data.conversation as Array<{ excerpt: string }>;
    expect(conversation).toHaveLength(10);
    expect(conversation[0]?.excerpt).toBe("Conversation comment 2 second paragraph");
    expect(data.pull_request).toMatchObject({ number: 7, title: "Login flow", state: "open" });
    // One GraphQL request answers it.
    expect(fake.requestsTo("/graphql")).toHaveLength(1);
  });

  test('state "all" adds the resolved thread; path narrows to a folder', async () => {
    seed(REVIEW);
    const all = expectOk(await callTool("get_review_threads", { ...ARGS, state: "all" }, context()));
    const resolved = (all.threads as Thread[])[0];
    expect(resolved).toMatchObject({ path: "docs/a.md", resolved: true, resolved_by: "alice" });
    const narrowed = expectOk(
      await callTool("get_review_threads", { ...ARGS, state: "all", path: "docs/" }, context()),
    );
    expect((narrowed.threads as Thread[]).map((t) => t.path)).toEqual(["docs/a.md"]);
  });

  test("untrusted text: invisible characters escaped in the reply", async () => {
    seed(REVIEW);
    const data = await callWithin(ARGS, context());
    expect(JSON.stringify(data)).not.toContain("\u202e");
    expect(data.threads[1]?.comments[1]?.body).toBe("Agreed \\u{202E} hidden");
  });

  test("250 long threads page through, in file order, none lost or repeated, each page within budget", async () => {
    const threads: ThreadFixture[] = Array.from({ length: 250 }, (_, i) => ({
      id: `T${i}`,
      path: `src/file${String((i * 37) % 50).padStart(2, "0")}.ts`,
      line: (i * 13) % 200,
      comments: [
        { author: "alice", body: `Thread ${i}: ${"long remark ".repeat(100)}`, diffHunk: HUNK },
        { author: "bob", body: "reply ".repeat(150) },
      ],
    }));
    seed(threads);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await callWithin({ ...ARGS, ...(cursor ? { cursor } : {}) }, context());
      seen.push(...page.threads.map((t) => t.comments[0]?.body.split(":")[0] as string));
      const keys = page.threads.map((t) => `${t.path}\u0000${String(t.line).padStart(4, "0")}`);
      expect(keys).toEqual([...keys].sort());
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== undefined && pages < 100);
    expect(pages).toBeGreaterThan(2);
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
  }, 60_000);

  test("a thread too long for a small budget comes with its comments cut short, said in the hint", async () => {
    seed([
      {
        path: "a.ts",
        line: 1,
        comments: Array.from({ length: 30 }, (_, i) => ({ author: "a", body: `${i} ${"words ".repeat(300)}` })),
      },
    ]);
    // The whole thread is about 32,000 tokens; cut short, about 8,000.
    const page = await callWithin(ARGS, context(), 10_000);
    expect(page.threads).toHaveLength(1);
    expect(page.threads[0]?.comments).toHaveLength(30);
    expect(page.threads[0]?.comments[0]?.body.length).toBeLessThanOrEqual(300);
    expect(page.hint).toContain("Comments cut to 300 characters");
  });

  test("a cursor from another PR or filter is refused", async () => {
    seed(
      Array.from({ length: 40 }, (_, i) => ({
        path: `f${i}`,
        line: 1,
        comments: [{ author: "a", body: "x".repeat(1400) }],
      })),
    );
    const first = await callWithin(ARGS, context(), 3000);
    expect(first.next_cursor).toBeString();
    const error = expectErr(
      await callTool("get_review_threads", { ...ARGS, state: "all", cursor: first.next_cursor }, context()),
    );
    expect(error.code).toBe("invalid_params");
  });

  test("the current branch's linked PR; GHES roots post to /api/graphql", async () => {
    seed(REVIEW);
    const dir = makeRepo({
      branch: "feat",
      remotes: [["origin", "https://github.com/octo/r.git"]],
      state: stateWith({ feat: 7 }),
    });
    const { ctx } = makeContext({
      env: { GITHUB_API_URL: `${fake.url}/api/v3`, GH_TOKEN: TOKEN },
      repo: { ok: true, value: dir },
    });
    const data = expectOk(await callTool("get_review_threads", {}, ctx));
    expect(data.found_by).toBe("twig_link");
    expect(fake.requestsTo("/api/graphql")).toHaveLength(1);
    expect(fake.requestsTo("/graphql")).toHaveLength(0);
    // The PR's number came from twig's link: no REST request at all.
    expect(fake.requests).toHaveLength(1);
  });

  test("no credentials: credentials_missing with a hint, no request", async () => {
    seed(REVIEW);
    const { ctx } = makeContext({ env: { GITHUB_API_URL: fake.url } });
    const error = expectErr(await callTool("get_review_threads", ARGS, ctx));
    expect(error.code).toBe("credentials_missing");
    expect(error.hint).toBeString();
    expect(fake.requests).toHaveLength(0);
  });

  test("GraphQL errors: FORBIDDEN and SAML say GraphQL; NOT_FOUND; a rate limit gives its reset time", async () => {
    seed(REVIEW);
    const answer = (type: string, message: string, headers: Record<string, string> = {}) =>
      fake.inject("POST", "/graphql", { body: { data: null, errors: [{ type, message }] }, headers });
    answer("FORBIDDEN", "Resource not accessible by integration");
    const forbidden = expectErr(await callTool("get_review_threads", ARGS, context()));
    expect(forbidden).toMatchObject({ code: "credentials_invalid" });
    expect(forbidden.message).toContain("GraphQL");
    answer("FORBIDDEN", "Resource protected by organization SAML enforcement.");
    expect(expectErr(await callTool("get_review_threads", ARGS, context())).message).toContain("SAML");
    const missing = expectErr(await callTool("get_review_threads", { ...ARGS, pr_number: 99 }, context()));
    expect(missing.code).toBe("not_found");
    expect(missing.message).toContain("GraphQL");
    answer("RATE_LIMITED", "API rate limit exceeded", {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "1900000000",
    });
    const limited = expectErr(await callTool("get_review_threads", ARGS, context()));
    expect(limited.code).toBe("rate_limited");
    expect(limited.message).toContain("2030-03-17T17:46:40Z");
  });

  test("an HTTP failure of the GraphQL endpoint is mapped and names the GraphQL API", async () => {
    seed(REVIEW);
    fake.inject("POST", "/graphql", { status: 403, body: { message: "Must have admin rights" } });
    const error = expectErr(await callTool("get_review_threads", ARGS, context()));
    expect(error.code).toBe("credentials_invalid");
    expect(error.message).toContain("GraphQL API");
  });
});

describe("the fake's GraphQL endpoint is GitHub's schema", () => {
  test("a field GitHub lacks fails validation, with no data, as on GitHub", async () => {
    const response = await fetch(`${fake.url}/graphql`, {
      method: "POST",
      headers: { authorization: `bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: '{ repository(owner: "o", name: "r") { pullRequest(number: 1) { reviewThreadz } } }',
      }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: Array<{ message: string }> };
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toContain('Cannot query field "reviewThreadz" on type "PullRequest"');
  });
});

describe("suggestion blocks", () => {
  test("the first block's lines; an empty block deletes; other fences are not suggestions", async () => {
    const { suggestionOf } = await import("../../src/github/review-threads.ts");
    expect(suggestionOf("Try:\n```suggestion\na\n  b\n```\nthanks")).toEqual(["a", "  b"]);
    expect(suggestionOf("```suggestion\r\nx\r\n```")).toEqual(["x"]);
    expect(suggestionOf("Delete it:\n```suggestion\n```")).toEqual([]);
    expect(suggestionOf("````suggestion\nhas ``` inside\n````")).toEqual(["has ``` inside"]);
    expect(suggestionOf("```ts\ncode\n```")).toBeNull();
    expect(suggestionOf("no block")).toBeNull();
    // As Markdown reads fences: one inside another block opens nothing; a longer fence of its character closes.
    expect(suggestionOf("```md\n```suggestion\nx\n```\n")).toBeNull();
    expect(suggestionOf("```md\ny\n```\n~~~suggestion\nx\n~~~~\n")).toEqual(["x"]);
    expect(suggestionOf("```suggestion\nnever closed")).toBeNull();
  });
});
