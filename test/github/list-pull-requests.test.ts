import { afterAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { type PullOptions, pullRequestPayload } from "../support/fake-github.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { callTool, cleanupTemp, expectErr, expectOk, makeContext, makeRepo, TOKEN, tool } from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
afterAll(cleanupTemp);

function context() {
  return makeContext({ env: fake.env() });
}

function seed(count: number, options: (n: number) => Partial<PullOptions> = () => ({})) {
  for (let n = 1; n <= count; n++) {
    const payload = pullRequestPayload({ owner: "octo", repo: "r", number: n, ...options(n) });
    fake.repo("octo", "r").pulls.set(n, payload);
  }
}

const TARGET = { owner: "octo", repo: "r" };

describe("list_pull_requests", () => {
  test("defaults: open PRs, 30 at most, newest first, list-form PR objects", async () => {
    seed(3, (n) => ({ state: n === 2 ? "closed" : "open" }));
    const { ctx } = context();
    const data = expectOk(await callTool("list_pull_requests", TARGET, ctx));
    const prs = data.pull_requests as Array<Record<string, unknown>>;
    expect(prs.map((pr) => pr.number)).toEqual([3, 1]);
    expect(data.has_more).toBe(false);
    // List payloads carry no mergeability: null, as upstream.
    expect(prs[0]?.mergeable).toBeNull();
    expect(prs[0]?.merged).toBe(false);
    expect(Object.keys(prs[0] ?? {}).slice(0, 10)).toEqual([
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
    ]);
    expect(v.safeParse(tool("list_pull_requests").output, data).success).toBe(true);
    expect(fake.requests[0]?.path).toBe("/repos/octo/r/pulls");
    expect(fake.requests[0]?.query).toEqual({ state: "open", per_page: "30", page: "1" });
  });

  test("state all/closed is passed through", async () => {
    seed(4, (n) => ({ state: n % 2 ? "open" : "closed" }));
    const { ctx } = context();
    const all = expectOk(await callTool("list_pull_requests", { ...TARGET, state: "all" }, ctx));
    expect((all.pull_requests as unknown[]).length).toBe(4);
    const closed = expectOk(await callTool("list_pull_requests", { ...TARGET, state: "closed" }, ctx));
    expect((closed.pull_requests as Array<{ number: number }>).map((pr) => pr.number)).toEqual([4, 2]);
  });

  test("an invalid state is rejected by the input schema", () => {
    const schema = tool("list_pull_requests").input;
    expect(v.safeParse(schema, { state: "merged" }).success).toBe(false);
    expect(v.safeParse(schema, { state: "open&per_page=100" }).success).toBe(false);
    expect(v.safeParse(schema, { limit: 0 }).success).toBe(false);
    expect(v.safeParse(schema, { limit: 501 }).success).toBe(false);
    expect(v.safeParse(schema, { limit: 2.5 }).success).toBe(false);
    expect(v.safeParse(schema, { owner: "octo/evil", repo: "r" }).success).toBe(false);
    expect(v.safeParse(schema, { head: "a b" }).success).toBe(false);
    expect(v.safeParse(schema, { state: "all", limit: 500, head: "octo:feature/x", base: "main" }).success).toBe(true);
  });

  test("limit follows pages until it is reached and says more exist", async () => {
    seed(250);
    const { ctx } = context();
    const data = expectOk(await callTool("list_pull_requests", { ...TARGET, limit: 150 }, ctx));
    const numbers = (data.pull_requests as Array<{ number: number }>).map((pr) => pr.number);
    expect(numbers).toHaveLength(150);
    expect(numbers[0]).toBe(250);
    expect(numbers[149]).toBe(101);
    expect(data.has_more).toBe(true);
    expect(fake.requests.map((r) => r.query)).toEqual([
      { state: "open", per_page: "100", page: "1" },
      { state: "open", per_page: "100", page: "2" },
    ]);
  });

  test("has_more is false when everything fit", async () => {
    seed(120);
    const { ctx } = context();
    const data = expectOk(await callTool("list_pull_requests", { ...TARGET, limit: 500 }, ctx));
    expect((data.pull_requests as unknown[]).length).toBe(120);
    expect(data.has_more).toBe(false);
    const exact = expectOk(await callTool("list_pull_requests", { ...TARGET, limit: 120 }, ctx));
    expect((exact.pull_requests as unknown[]).length).toBe(120);
    expect(exact.has_more).toBe(false);
    const fewer = expectOk(await callTool("list_pull_requests", { ...TARGET, limit: 5 }, ctx));
    expect((fewer.pull_requests as unknown[]).length).toBe(5);
    expect(fewer.has_more).toBe(true);
  });

  test("head and base filters; a bare head branch gets the owner prefix GitHub requires", async () => {
    seed(5, (n) => ({ head: n === 3 ? "feature/x" : `f${n}`, base: n === 4 ? "release" : "main" }));
    const { ctx } = context();
    const byHead = expectOk(await callTool("list_pull_requests", { ...TARGET, head: "feature/x" }, ctx));
    expect((byHead.pull_requests as Array<{ number: number }>).map((pr) => pr.number)).toEqual([3]);
    expect(fake.requests[0]?.query.head).toBe("octo:feature/x");
    const byBase = expectOk(await callTool("list_pull_requests", { ...TARGET, base: "release", state: "all" }, ctx));
    expect((byBase.pull_requests as Array<{ number: number }>).map((pr) => pr.number)).toEqual([4]);
    expect(fake.requests[1]?.query).toMatchObject({ base: "release", state: "all" });
    expectOk(await callTool("list_pull_requests", { ...TARGET, head: "fork-owner:feature/x" }, ctx));
    expect(fake.requests[2]?.query.head).toBe("fork-owner:feature/x");
  });

  test("list bodies are cut shorter than single-PR bodies", async () => {
    seed(1, () => ({ body: "y".repeat(2000) }));
    const { ctx } = context();
    const data = expectOk(await callTool("list_pull_requests", TARGET, ctx));
    const pr = (data.pull_requests as Array<Record<string, unknown>>)[0] ?? {};
    expect((pr.body as string).length).toBeLessThanOrEqual(501);
    expect(pr.truncated).toBe(true);
  });

  test("uses the origin remote of the current repository", async () => {
    seed(1);
    const repo = makeRepo({ remotes: [["origin", "https://github.com/octo/r.git"]] });
    const { ctx } = makeContext({ env: fake.env(), repo: ok(repo) });
    const data = expectOk(await callTool("list_pull_requests", {}, ctx));
    expect((data.pull_requests as unknown[]).length).toBe(1);
    expect(fake.requests[0]?.path).toBe("/repos/octo/r/pulls");
  });

  test("a repository GitHub does not know is not_found with an access hint", async () => {
    const { ctx } = context();
    const error = expectErr(await callTool("list_pull_requests", { owner: "octo", repo: "missing" }, ctx));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("Repository octo/missing not found (HTTP 404)");
    expect(error.hint).toContain("$GH_TOKEN");
    expect(error.hint).toContain("repo");
  });
});
