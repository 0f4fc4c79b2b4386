import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import * as v from "valibot";
import { jsonSchemaOf, outputSchemaOf } from "../../src/mcp/json-schema.ts";
import { githubTools } from "../../src/tools/all.ts";
import { REMOTE_ANNOTATIONS } from "../../src/tools/shared/define.ts";
import { checkRunPayload, commitStatusPayload, reviewPayload } from "../support/fake-github.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { callTool, cleanupTemp, expectOk, makeContext, TOKEN, tool } from "./helpers.ts";

const UPSTREAM_DESCRIPTIONS: Record<string, string> = {
  get_pull_request: "Get full details for a GitHub pull request. Defaults to the current branch's PR.",
  get_pr_status: "Get PR details with reviews and CI check status. Defaults to the current branch's PR.",
  list_pull_requests: "List pull requests for the current repository. Defaults to open PRs.",
};

describe("GitHub tool definitions", () => {
  test("the upstream tools and get_ci_log, in the github group, remote annotations, upstream descriptions first", () => {
    expect(githubTools.map((t) => t.name).sort()).toEqual([
      "get_ci_log",
      "get_pr_status",
      "get_pull_request",
      "get_review_threads",
      "list_pull_requests",
    ]);
    for (const definition of githubTools) {
      expect(definition.group).toBe("github");
      expect(definition.annotations).toEqual(REMOTE_ANNOTATIONS);
      expect(definition.title.length).toBeGreaterThan(0);
      expect(definition.description.startsWith(UPSTREAM_DESCRIPTIONS[definition.name] ?? "")).toBe(true);
    }
  });

  test("input and output schemas convert to JSON Schema", () => {
    for (const definition of githubTools) {
      const input = jsonSchemaOf(definition.input);
      expect(input.type).toBe("object");
      expect(input.required ?? []).toEqual([]);
      jsonSchemaOf(definition.output);
    }
    // Bounds and character rules that only stop pathological input are checked, not published.
    const input = jsonSchemaOf(tool("get_pr_status").input) as { properties: Record<string, Record<string, unknown>> };
    expect(input.properties.pr_number).toEqual({
      type: "integer",
      minimum: 1,
      description: expect.stringContaining("Default: the current branch's PR"),
    });
    expect(input.properties.owner).toEqual({ type: "string", description: expect.any(String) });
    expect(input.properties.repo).toEqual({ type: "string", description: expect.any(String) });
    const list = jsonSchemaOf(tool("list_pull_requests").input) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(list.properties.state).toMatchObject({ enum: ["open", "closed", "all"] });
    expect(list.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 500 });
    expect(list.properties.head).toEqual({ type: "string", description: expect.any(String) });
  });

  test("pr_number bounds", () => {
    const schema = tool("get_pull_request").input;
    for (const bad of [0, -1, 1.5, 4294967296, "12"])
      expect(v.safeParse(schema, { pr_number: bad }).success).toBe(false);
    for (const good of [1, 4294967295]) expect(v.safeParse(schema, { pr_number: good }).success).toBe(true);
    expect(v.safeParse(schema, {}).success).toBe(true);
  });

  test("unpublished constraints are still enforced", () => {
    const schema = tool("list_pull_requests").input;
    for (const bad of [{ owner: "" }, { owner: "a/b" }, { owner: "o".repeat(101) }, { repo: "" }, { head: "a b" }])
      expect(v.safeParse(schema, bad).success).toBe(false);
    expect(v.safeParse(schema, { owner: "o", repo: "r", head: "o:feature/x" }).success).toBe(true);
  });
});

describe("results validate against the published outputSchema (as a strict client checks)", () => {
  const fake = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
  beforeAll(async () => {});
  afterAll(async () => {
    cleanupTemp();
  });

  test("every tool, with nulls, pending reviews, queued checks and truncated bodies", async () => {
    const sha = "f".repeat(40);
    fake.addPull({
      owner: "o",
      repo: "r",
      number: 1,
      headSha: sha,
      body: "b".repeat(9000),
      mergeable: null,
      author: null,
    });
    fake.addPull({ owner: "o", repo: "r", number: 2, body: null, draft: true });
    const data = fake.repo("o", "r");
    data.reviews.set(1, [
      reviewPayload({ login: "a", state: "PENDING" }),
      reviewPayload({ login: null, state: "APPROVED" }),
    ]);
    data.checkRuns.set(sha, [checkRunPayload({ name: "q", status: "queued", startedAt: null })]);
    data.statuses.set(sha, [commitStatusPayload({ context: "c", state: "pending", description: null })]);
    fake.inject("GET", `/repos/o/r/commits/${sha}/status`, { status: 404, body: { message: "Not Found" } });

    const { ctx } = makeContext({ env: { GITHUB_API_URL: fake.url, GH_TOKEN: TOKEN } });
    const ajv = new Ajv({ strict: false, allErrors: true });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["get_pull_request", { owner: "o", repo: "r", pr_number: 1 }],
      ["get_pull_request", { owner: "o", repo: "r", pr_number: 2 }],
      ["get_pr_status", { owner: "o", repo: "r", pr_number: 1 }],
      ["list_pull_requests", { owner: "o", repo: "r", state: "all" }],
    ];
    for (const [name, args] of calls) {
      const result = expectOk(await callTool(name, args, ctx));
      const validate = ajv.compile(outputSchemaOf(tool(name).output));
      const valid = validate(JSON.parse(JSON.stringify(result)));
      if (!valid) throw new Error(`${name}: ${JSON.stringify(validate.errors)}`);
      expect(v.safeParse(tool(name).output, result).success).toBe(true);
    }
  });
});
