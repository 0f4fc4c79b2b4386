import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { realpathSync } from "node:fs";
import { checkRunPayload, commitStatusPayload, reviewPayload } from "../support/fake-github.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { cleanupTemp, makeRepo, stateWith, TOKEN } from "./helpers.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

/** The GitHub tools through the compiled binary and the SDK's MCP client, against the fake API. */
describe("GitHub tools end to end", () => {
  const fake = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
  let home: HermeticHome;
  let server: RunningServer;
  const sha = "c".repeat(40);

  beforeAll(async () => {
    fake.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", headSha: sha, title: "Auth UI" });
    fake.addPull({ owner: "octo", repo: "shop", number: 44, state: "closed" });
    const data = fake.repo("octo", "shop");
    data.reviews.set(43, [
      reviewPayload({ login: "alice", state: "APPROVED" }),
      reviewPayload({ login: "bob", state: "PENDING" }),
    ]);
    data.checkRuns.set(sha, [
      checkRunPayload({ name: "build" }),
      checkRunPayload({ name: "e2e", status: "queued", startedAt: null }),
    ]);
    data.statuses.set(sha, [commitStatusPayload({ context: "ci/legacy", state: "success" })]);

    const repo = realpathSync(
      makeRepo({
        branch: "feature/auth-ui",
        remotes: [["origin", "git@github.com:octo/shop.git"]],
        state: stateWith({ "feature/auth-ui": 43 }),
      }),
    );
    home = makeHermeticHome({
      GITHUB_API_URL: fake.url,
      GH_TOKEN: TOKEN,
      TWIG_MCP_HTTP_TIMEOUT_MS: "3000",
      TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1",
    });
    server = await startServer({ cwd: repo, env: home.env, args: ["-vvv"] });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    home?.cleanup();
    cleanupTemp();
  });

  test("tools/list publishes the three tools with output schemas", async () => {
    const { tools } = await server.client.listTools();
    const github = tools.filter((t) => ["get_pull_request", "get_pr_status", "list_pull_requests"].includes(t.name));
    expect(github).toHaveLength(3);
    for (const tool of github) {
      expect(tool.outputSchema).toBeDefined();
      // openWorldHint defaults to true in MCP, so it is left out.
      expect(tool.annotations).toEqual({ readOnlyHint: true });
    }
  });

  test("get_pull_request defaults to the current branch's PR", async () => {
    const result = await server.call("get_pull_request");
    expect(result.isError).toBe(false);
    expect(result.envelope.status).toBe("ok");
    expect(result.text.startsWith('{"status":"ok","data":{"number":43,"title":"Auth UI","state":"open",')).toBe(true);
    expect(result.structured).toMatchObject({ number: 43, head: "feature/auth-ui", head_sha: sha });
  });

  test("get_pr_status", async () => {
    const result = await server.call("get_pr_status", { pr_number: 43 });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({
      reviews: [
        { author: "alice", state: "APPROVED" },
        { author: "bob", state: "PENDING", submitted_at: null },
      ],
      summary: {
        latest_reviews: [{ author: "alice", state: "APPROVED" }],
        checks: { total: 3, passing: 2, failing: 0, pending: 1 },
        verdict: "pending",
      },
    });
  });

  test("list_pull_requests", async () => {
    const result = await server.call("list_pull_requests", { state: "all", limit: 1 });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({ pull_requests: [{ number: 44 }], has_more: true });
    const invalid = await server.call("list_pull_requests", { state: "merged" });
    expect(invalid.isError).toBe(true);
    expect(invalid.envelope.error?.code).toBe("invalid_params");
  });

  test("errors come back as tool results; the token never reaches stderr", async () => {
    const missing = await server.call("get_pull_request", { pr_number: 999 });
    expect(missing.isError).toBe(true);
    expect(missing.envelope.error?.code).toBe("not_found");
    expect(server.stderr()).toContain("GitHub GET /repos/octo/shop/pulls/999 -> 404");
    expect(server.stderr()).not.toContain(TOKEN);
    expect(fake.requests.every((r) => r.headers.authorization === `token ${TOKEN}`)).toBe(true);
  });
});
