import { afterAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import {
  callTool,
  cleanupTemp,
  expectErr,
  expectOk,
  makeContext,
  makeRepo,
  stateWith,
  TOKEN,
  tool,
} from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
afterAll(cleanupTemp);

function env(extra: Record<string, string> = {}) {
  return { ...fake.env(), ...extra };
}

describe("get_pull_request", () => {
  test("maps the payload to upstream's keys in upstream's order, then the additions", async () => {
    fake.addPull({
      owner: "octo",
      repo: "my.repo",
      number: 42,
      title: "Add login",
      author: "alice",
      head: "feature/auth",
      base: "main",
      headSha: "a".repeat(40),
      labels: ["bug", "ui"],
      requestedReviewers: ["bob"],
      requestedTeams: ["core"],
      body: "  Fixes #1\r\n\r\nDetails  ",
    });
    const { ctx } = makeContext({ env: env() });
    const data = expectOk(await callTool("get_pull_request", { pr_number: 42, owner: "octo", repo: "my.repo" }, ctx));
    expect(Object.keys(data)).toEqual([
      "number",
      "title",
      "state",
      "author",
      "base",
      "head",
      "draft",
      "mergeable",
      "created_at",
      "updated_at",
      "url",
      "body",
      "labels",
      "requested_reviewers",
      "merged",
      "head_sha",
    ]);
    expect(data).toEqual({
      number: 42,
      title: "Add login",
      state: "open",
      author: "alice",
      base: "main",
      head: "feature/auth",
      draft: false,
      mergeable: true,
      created_at: "2011-01-26T19:01:12Z",
      updated_at: "2011-01-26T19:01:12Z",
      url: "https://github.com/octo/my.repo/pull/42",
      body: "Fixes #1\n\nDetails",
      labels: ["bug", "ui"],
      requested_reviewers: ["bob", "octo/core"],
      merged: false,
      head_sha: "a".repeat(40),
    });
    expect(v.safeParse(tool("get_pull_request").output, data).success).toBe(true);

    const [request] = fake.requests;
    expect(request?.method).toBe("GET");
    expect(request?.path).toBe("/repos/octo/my.repo/pulls/42");
    expect(request?.headers.authorization).toBe(`token ${TOKEN}`);
    expect(request?.headers["user-agent"]).toStartWith("twig-mcp/");
    expect(request?.headers.accept).toBe("application/vnd.github.v3+json");
  });

  test("nulls and absences: deleted author, no body, unknown mergeability, merged PR", async () => {
    fake.addPull({
      owner: "octo",
      repo: "r",
      number: 7,
      author: null,
      body: null,
      mergeable: null,
      merged: true,
      draft: true,
      labels: [],
      requestedReviewers: [],
    });
    const { ctx } = makeContext({ env: env() });
    const data = expectOk(await callTool("get_pull_request", { pr_number: 7, owner: "octo", repo: "r" }, ctx));
    expect(data).toMatchObject({
      author: "ghost",
      body: null,
      mergeable: null,
      merged: true,
      state: "closed",
      draft: true,
      labels: [],
      requested_reviewers: [],
    });
    expect("truncated" in data).toBe(false);
    expect(v.safeParse(tool("get_pull_request").output, data).success).toBe(true);
  });

  test("a long body is cut and flagged", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 8, body: "x".repeat(20_000) });
    const { ctx } = makeContext({ env: env() });
    const data = expectOk(await callTool("get_pull_request", { pr_number: 8, owner: "octo", repo: "r" }, ctx));
    expect((data.body as string).length).toBeLessThanOrEqual(8001);
    expect(data.truncated).toBe(true);
    expect(Object.keys(data).indexOf("truncated")).toBe(Object.keys(data).indexOf("body") + 1);
    expect(v.safeParse(tool("get_pull_request").output, data).success).toBe(true);
  });

  test("a second call revalidates with If-None-Match and reuses the cached body on 304", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 9, title: "First" });
    const { ctx } = makeContext({ env: env() });
    const args = { pr_number: 9, owner: "octo", repo: "r" };
    const first = expectOk(await callTool("get_pull_request", args, ctx));
    const second = expectOk(await callTool("get_pull_request", args, ctx));
    expect(second).toEqual(first);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 304]);
    expect(fake.requests[0]?.headers["if-none-match"]).toBeUndefined();
    expect(fake.requests[1]?.headers["if-none-match"]).toMatch(/^W\/"/);

    // A change on GitHub's side gives a fresh 200 and the new data.
    (fake.repo("octo", "r").pulls.get(9) as Record<string, unknown>).title = "Second";
    const third = expectOk(await callTool("get_pull_request", args, ctx));
    expect(third.title).toBe("Second");
    expect(fake.requests[2]?.status).toBe(200);
  });

  test("ETags are not shared between tokens", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 10 });
    const a = makeContext({ env: env() });
    expectOk(await callTool("get_pull_request", { pr_number: 10, owner: "octo", repo: "r" }, a.ctx));
    fake.token = "other-token-value";
    // The same process's clients (and ETag cache), another token.
    const b = { ...a.ctx, env: env({ GH_TOKEN: "other-token-value" }) };
    expectOk(await callTool("get_pull_request", { pr_number: 10, owner: "octo", repo: "r" }, b));
    expect(fake.requests[1]?.headers["if-none-match"]).toBeUndefined();
    fake.token = TOKEN;
  });

  test("pr_number defaults to the PR twig linked to the current branch", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 43, head: "feature/auth-ui" });
    const repo = makeRepo({
      branch: "feature/auth-ui",
      remotes: [["origin", "git@github.com:octo/r.git"]],
      state: stateWith({ "feature/auth-ui": 43 }),
    });
    const { ctx } = makeContext({ env: env(), repo: ok(repo) });
    const data = expectOk(await callTool("get_pull_request", {}, ctx));
    expect(data.number).toBe(43);
    expect(fake.requests[0]?.path).toBe("/repos/octo/r/pulls/43");
  });

  test("a branch without a linked PR, and no PR from it on GitHub, is not_found with a way forward", async () => {
    fake.repo("octo", "r");
    const repo = makeRepo({
      branch: "feature/x",
      remotes: [["origin", "https://github.com/octo/r"]],
      state: stateWith({ "feature/x": null }),
    });
    const { ctx } = makeContext({ env: env(), repo: ok(repo) });
    const error = expectErr(await callTool("get_pull_request", {}, ctx));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("Branch 'feature/x' has no linked GitHub PR, and octo/r has no PR from it");
    expect(error.hint).toContain("pr_number");
    // One lookup by head ref, the only request.
    expect(fake.requests.map((r) => [r.path, r.query.head])).toEqual([["/repos/octo/r/pulls", "octo:feature/x"]]);
  });

  test("detached HEAD is a clear error, not a branch called HEAD", async () => {
    const repo = makeRepo({ remotes: [["origin", "https://github.com/octo/r"]], state: stateWith({}) });
    const { git } = await import("./helpers.ts");
    git(repo, "checkout", "-q", "--detach");
    const { ctx } = makeContext({ env: env(), repo: ok(repo) });
    const error = expectErr(await callTool("get_pull_request", {}, ctx));
    expect(error.code).toBe("invalid_params");
    expect(error.message).toContain("HEAD is detached");
    expect(error.message).not.toContain("Branch 'HEAD'");
    expect(error.hint).toContain("pr_number");
  });

  test("outside a clone an explicit owner/repo/pr_number works; without them the error says what to pass", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 1 });
    const { ctx } = makeContext({ env: env() });
    expectOk(await callTool("get_pull_request", { pr_number: 1, owner: "octo", repo: "r" }, ctx));
    const noRepo = expectErr(await callTool("get_pull_request", { pr_number: 1 }, ctx));
    expect(noRepo.code).toBe("no_repo");
    expect(noRepo.hint).toContain("owner");
    const noNumber = expectErr(await callTool("get_pull_request", { owner: "octo", repo: "r" }, ctx));
    expect(noNumber.code).toBe("no_repo");
    expect(noNumber.hint).toContain("pr_number");
  });

  test("owner without repo is refused before any request", async () => {
    const { ctx } = makeContext({ env: env() });
    const error = expectErr(await callTool("get_pull_request", { pr_number: 1, owner: "octo" }, ctx));
    expect(error.code).toBe("invalid_params");
    expect(fake.requests).toHaveLength(0);
  });
});
