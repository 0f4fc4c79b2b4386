import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { warmGitHubSchema } from "../support/fake-github-graphql.ts";
import { makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";

// The compiled binary and git start here; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const TOKEN = "ghp_reviewthreadstesttoken000000000000";
const fake = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
beforeAll(() => warmGitHubSchema(), 60_000);
let home: HermeticHome;
let root: string;
let server: RunningServer;

type Reply = { structuredContent?: Record<string, unknown>; isError?: boolean; content: Array<{ text?: string }> };

beforeAll(async () => {
  home = makeHermeticHome();
  root = mkdtempSync(join(tmpdir(), "twig-mcp-threads-"));
  const repo = makeExampleRepo(join(root, "shop"), home.home, {
    checkout: "feature/auth-ui",
    origin: "git@github.com:octo/shop.git",
  });
  fake.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", title: "UI" });
  const data = fake.repo("octo", "shop");
  data.reviewThreads.set(43, [
    {
      path: "src/app/login.py",
      line: 42,
      comments: [
        { author: "alice", body: "The secret is hard-coded here.\n```suggestion\nSECRET = os.environ['SECRET']\n```" },
        { author: "bob", body: "+1" },
      ],
    },
    { path: "README.md", line: 1, isResolved: true, comments: [{ author: "carol", body: "typo" }] },
  ]);
  data.issueComments.set(43, [{ author: "dave", body: "Ready for another look?" }]);
  server = await startServer({ cwd: repo, env: { ...home.env, GITHUB_API_URL: fake.url, GH_TOKEN: TOKEN } });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

describe("get_review_threads through the binary", () => {
  test("the current branch's PR (twig's link): unresolved threads with a suggestion, one line each", async () => {
    const reply = (await server.client.callTool({ name: "get_review_threads", arguments: {} })) as Reply;
    expect(reply.isError).toBeFalsy();
    const data = reply.structuredContent as {
      unresolved_threads: number;
      threads: Array<{ path: string; comments: Array<{ suggestion?: { lines: string[] } }> }>;
      lines: string[];
      conversation: Array<{ excerpt: string }>;
    };
    expect(data.unresolved_threads).toBe(1);
    expect(data.threads.map((t) => t.path)).toEqual(["src/app/login.py"]);
    expect(data.threads[0]?.comments[0]?.suggestion).toMatchObject({ lines: ["SECRET = os.environ['SECRET']"] });
    expect(data.lines[0]).toStartWith('src/app/login.py:42 · alice: "The secret is hard-coded here.');
    expect(data.lines[0]).toContain("(1 reply)");
    expect(data.conversation.map((c) => c.excerpt)).toEqual(["Ready for another look?"]);
    expect(reply.content[0]?.text).not.toContain(TOKEN);
  });

  test("get_pr_status counts the unresolved threads", async () => {
    const reply = (await server.client.callTool({ name: "get_pr_status", arguments: { pr_number: 43 } })) as Reply;
    expect((reply.structuredContent as { summary: { unresolved_threads?: number } }).summary.unresolved_threads).toBe(
      1,
    );
  });

  test("the review-pr prompt lists the unresolved threads", async () => {
    const prompt = await server.client.getPrompt({ name: "review-pr", arguments: { pr_number: "43" } });
    const text = (prompt.messages[0] as { content: { text: string } }).content.text;
    expect(text).toContain('\nUnresolved review threads (1):\n- src/app/login.py:42 · alice: "The secret');
    expect(text).not.toContain("README.md");
  });
});
