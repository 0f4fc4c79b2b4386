import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ok, type Result } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { jiraTools } from "../../src/tools/all.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { REPO_PARAM_DESCRIPTION } from "../../src/tools/shared/params.ts";
import { type FakeDeployment, type FakeIssue, FakeJira, USERS } from "../support/fake-jira.ts";
import { SHOP_123, SHOP_200 } from "./fixtures/issues.ts";
import { RICH_ADF_TEXT } from "./fixtures/rich-adf.ts";
import { RICH_WIKI_TEXT } from "./fixtures/rich-wiki.ts";
import { API_TOKEN, BASIC_AUTH, EMAIL, type JiraTestContext, jiraContext, never, recordingSleep } from "./helpers.ts";

const ISSUE_FIELDS = "summary,description,status,assignee,issuetype,priority,labels,reporter,updated";
const SEARCH_FIELDS = ISSUE_FIELDS.split(",");

function issues(): FakeIssue[] {
  return [
    { ...SHOP_123 },
    { ...SHOP_200 },
    ...Array.from({ length: 6 }, (_, i) => ({
      key: `SHOP-${300 + i}`,
      summary: `Task ${i}`,
      wiki: `Task _${i}_`,
      adf: {
        type: "doc",
        version: 1,
        content: [{ type: "paragraph", content: [{ type: "text", text: `Task ${i}` }] }],
      },
      status: i % 2 === 0 ? "In Progress" : "Done",
      assignee: i % 3 === 0 ? USERS.alice : USERS.bob,
      updated: `2025-05-${String(20 - i).padStart(2, "0")}T10:00:00.000+0000`,
    })),
    {
      key: "OTHER-1",
      summary: "Elsewhere",
      status: "In Progress",
      assignee: USERS.alice,
      updated: "2025-06-09T00:00:00.000+0000",
    },
  ];
}

const fakes = {} as Record<"cloud" | "datacenter", FakeJira>;
const contexts: JiraTestContext[] = [];

beforeAll(() => {
  for (const deployment of ["cloud", "datacenter"] as const) {
    fakes[deployment] = FakeJira.start({ deployment, expectedAuthorization: BASIC_AUTH, me: USERS.alice, pageCap: 3 });
    fakes[deployment].addIssues(...issues());
  }
});
afterAll(async () => {
  await Promise.all(Object.values(fakes).map((fake) => fake.stop()));
});
afterEach(() => {
  for (const fake of Object.values(fakes)) {
    fake.clearFaults();
    fake.requests.length = 0;
  }
  for (const c of contexts.splice(0)) c.cleanup();
});

const sleep = recordingSleep();

function contextFor(fake: FakeJira, env: Record<string, string> = {}): ServiceContext {
  const made = jiraContext({
    env: { JIRA_HOST: fake.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN, ...env },
    client: sleep.options,
  });
  contexts.push(made);
  return made.ctx;
}

const tool = (name: string) => jiraTools.find((t) => t.name === name) as ToolDefinition;
type Data = Record<string, unknown>;
const call = (name: string, args: Record<string, unknown>, ctx: ServiceContext, signal = never()) =>
  tool(name).handler(args, ctx, { signal }) as Promise<Result<Data>>;

/** Through the registry: argument validation and the output-schema check a strict client relies on. */
async function callViaRegistry(name: string, args: Record<string, unknown>, ctx: ServiceContext) {
  const registry = new ToolRegistry(jiraTools, new Set());
  const result = await registry.call(registry.get(name) as ToolDefinition, args, ctx, never());
  return JSON.parse(result.content[0]?.text ?? "{}") as {
    status: string;
    data?: Record<string, unknown>;
    error?: { code: string; message: string; hint?: string };
  };
}

describe("tool definitions", () => {
  test("two tools in group jira, remote annotations, titles, upstream descriptions first", () => {
    expect(jiraTools.map((t) => t.name)).toEqual(["get_jira_issue", "list_jira_issues"]);
    for (const t of jiraTools) {
      expect(t.group).toBe("jira");
      expect(t.annotations).toEqual({
        readOnlyHint: true,
        openWorldHint: true,
      });
      expect(t.title).not.toBe("");
    }
    expect(tool("get_jira_issue").description).toStartWith(
      "Get details for a Jira issue. Defaults to the current branch's linked issue.",
    );
    expect(tool("list_jira_issues").description).toStartWith(
      "List Jira issues for a project with optional status and assignee filters",
    );
  });

  test("published schemas", () => {
    const registry = new ToolRegistry(jiraTools, new Set());
    const [get, list] = registry.list();
    expect(get?.inputSchema).toEqual({
      type: "object",
      properties: {
        issue_key: {
          type: "string",
          description: 'Jira issue key (e.g. "PROJ-123"). Default: the current branch\'s linked issue.',
        },
        repo: { type: "string", description: REPO_PARAM_DESCRIPTION },
      },
    });
    expect(list?.inputSchema.required).toEqual(["project"]);
    expect((list?.inputSchema.properties as Record<string, { maximum?: number }> | undefined)?.limit?.maximum).toBe(
      100,
    );
    expect(list?.outputSchema).toEqual({
      type: "object",
      properties: {
        issues: { type: "array" },
        has_more: { type: "boolean" },
        total: { type: "number" },
      },
    });
  });

  test("key patterns are checked but not published", () => {
    const [get, list] = jiraTools;
    expect(v.safeParse(get!.input, { issue_key: "PROJ 1" }).success).toBe(false);
    expect(v.safeParse(list!.input, { project: "PROJ-1" }).success).toBe(false);
    expect(v.safeParse(get!.input, { issue_key: "proj-1" }).success).toBe(true);
  });
});

const EXPECTED_123 = (fake: FakeJira, description: string) => ({
  key: "SHOP-123",
  summary: "Checkout fails for guests",
  description,
  status: "In Progress",
  assignee: "Alice Example",
  url: `${fake.url}/browse/SHOP-123`,
  issue_type: "Bug",
  priority: "High",
  labels: ["checkout", "payments"],
  reporter: "Bob Builder",
  updated: "2025-06-03T14:22:07.481+0000",
});

const deployments: { name: FakeDeployment & ("cloud" | "datacenter"); api: "2" | "3"; text: string }[] = [
  { name: "cloud", api: "3", text: RICH_ADF_TEXT },
  { name: "datacenter", api: "2", text: RICH_WIKI_TEXT },
];

for (const { name, api, text } of deployments) {
  describe(`get_jira_issue on ${name}`, () => {
    test(`explicit key (normalised) → v${api} request and full output in key order`, async () => {
      const fake = fakes[name];
      const result = await call("get_jira_issue", { issue_key: "shop-123" }, contextFor(fake));
      expect(result).toEqual(ok(EXPECTED_123(fake, text)));
      if (result.ok) expect(Object.keys(result.value)).toEqual(Object.keys(EXPECTED_123(fake, text)));
      const [probe, get] = fake.requests;
      expect(probe).toMatchObject({ method: "GET", path: "/rest/api/2/serverInfo" });
      expect(get).toMatchObject({
        method: "GET",
        path: `/rest/api/${api}/issue/SHOP-123`,
        query: { fields: ISSUE_FIELDS },
      });
      expect(get?.headers.authorization).toBe(BASIC_AUTH);
    });

    test("sparse issue: no description, assignee, reporter or priority keys", async () => {
      const fake = fakes[name];
      const result = await call("get_jira_issue", { issue_key: "SHOP-200" }, contextFor(fake));
      expect(result).toEqual(
        ok({
          key: "SHOP-200",
          summary: "Billing page",
          status: "To Do",
          url: `${fake.url}/browse/SHOP-200`,
          issue_type: "Story",
          labels: [],
          updated: "2025-06-02T09:00:00.000+0000",
        }),
      );
    });

    test("passes the registry's output-schema check", async () => {
      const envelope = await callViaRegistry("get_jira_issue", { issue_key: "SHOP-123" }, contextFor(fakes[name]));
      expect(envelope.status).toBe("ok");
      expect(envelope.data?.key).toBe("SHOP-123");
    });

    test("unknown issue → not_found", async () => {
      const result = await call("get_jira_issue", { issue_key: "SHOP-999" }, contextFor(fakes[name]));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe("not_found");
      expect(result.error.message).toStartWith("Issue SHOP-999 does not exist or is not visible to you");
    });

    test("long description is cut with truncated: true", async () => {
      const fake = fakes[name];
      const long = "lorem ipsum ".repeat(3000);
      fake.addIssues({
        key: "SHOP-900",
        summary: "Long",
        wiki: long,
        adf: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: long }] }] },
      });
      const result = await call("get_jira_issue", { issue_key: "SHOP-900" }, contextFor(fake));
      expect(result.ok && result.value.truncated).toBe(true);
      expect(result.ok && (result.value.description as string).length).toBeLessThanOrEqual(20_002);
      fake.issues.delete("SHOP-900");
    });
  });

  describe(`list_jira_issues on ${name}`, () => {
    test("JQL, request body and paging up to the limit", async () => {
      const fake = fakes[name];
      const result = await call("list_jira_issues", { project: "shop", limit: 5 }, contextFor(fake));
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const keys = (result.value.issues as { key: string }[]).map((i) => i.key);
      expect(keys).toEqual(["SHOP-123", "SHOP-200", "SHOP-300", "SHOP-301", "SHOP-302"]);
      expect(result.value.has_more).toBe(true);
      const searches = fake.apiRequests();
      const jql = 'project = "SHOP" ORDER BY updated DESC';
      if (name === "cloud") {
        expect(searches.map((r) => `${r.method} ${r.path}`)).toEqual([
          "POST /rest/api/3/search/jql",
          "POST /rest/api/3/search/jql",
        ]);
        expect(searches[0]?.body).toEqual({ jql, maxResults: 5, fields: SEARCH_FIELDS });
        const second = searches[1]?.body as Record<string, unknown>;
        expect(Object.keys(second)).toEqual(["jql", "nextPageToken", "maxResults", "fields"]);
        expect(second.maxResults).toBe(2);
        expect("total" in result.value).toBe(false);
      } else {
        expect(searches.map((r) => `${r.method} ${r.path}`)).toEqual([
          "POST /rest/api/2/search",
          "POST /rest/api/2/search",
        ]);
        expect(searches[0]?.body).toEqual({ jql, startAt: 0, maxResults: 5, fields: SEARCH_FIELDS });
        expect(searches[1]?.body).toEqual({ jql, startAt: 3, maxResults: 2, fields: SEARCH_FIELDS });
        expect(result.value.total).toBe(8);
      }
      for (const r of searches) expect(r.headers.authorization).toBe(BASIC_AUTH);
    });

    test("all results fit: has_more false; default limit 20", async () => {
      const fake = fakes[name];
      const result = await call("list_jira_issues", { project: "SHOP" }, contextFor(fake));
      expect(result.ok && (result.value.issues as unknown[]).length).toBe(8);
      expect(result.ok && result.value.has_more).toBe(false);
      expect((fake.apiRequests()[0]?.body as { maxResults: number } | undefined)?.maxResults).toBe(20);
    });

    test("limit equal to the number of matches: has_more false", async () => {
      const result = await call("list_jira_issues", { project: "SHOP", limit: 8 }, contextFor(fakes[name]));
      expect(result.ok && (result.value.issues as unknown[]).length).toBe(8);
      expect(result.ok && result.value.has_more).toBe(false);
    });

    test("status and assignee=me filters", async () => {
      const fake = fakes[name];
      const result = await call(
        "list_jira_issues",
        { project: "SHOP", status: "In Progress", assignee: "me" },
        contextFor(fake),
      );
      expect(result.ok && (result.value.issues as { key: string }[]).map((i) => i.key)).toEqual([
        "SHOP-123",
        "SHOP-300",
      ]);
      expect((fake.apiRequests()[0]?.body as { jql: string } | undefined)?.jql).toBe(
        'project = "SHOP" AND status = "In Progress" AND assignee = currentUser() ORDER BY updated DESC',
      );
    });

    test("assignee by name and unassigned", async () => {
      const fake = fakes[name];
      const byName = await call("list_jira_issues", { project: "SHOP", assignee: "Bob Builder" }, contextFor(fake));
      expect(byName.ok && (byName.value.issues as { key: string }[]).map((i) => i.key)).toEqual([
        "SHOP-301",
        "SHOP-302",
        "SHOP-304",
        "SHOP-305",
      ]);
      const none = await call("list_jira_issues", { project: "SHOP", assignee: "unassigned" }, contextFor(fake));
      expect(none.ok && (none.value.issues as { key: string }[]).map((i) => i.key)).toEqual(["SHOP-200"]);
    });

    test("list descriptions are shortened; issues carry the same keys as get_jira_issue", async () => {
      const fake = fakes[name];
      const long = "lorem ipsum ".repeat(500);
      fake.addIssues({
        ...(issues()[0] as FakeIssue),
        key: "SHOP-901",
        wiki: long,
        adf: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: long }] }] },
        updated: "2030-01-01T00:00:00.000+0000",
      });
      try {
        const result = await call("list_jira_issues", { project: "SHOP", limit: 2 }, contextFor(fake));
        const [first, second] = (result.ok ? result.value.issues : []) as Record<string, unknown>[];
        expect(first?.key).toBe("SHOP-901");
        expect(first?.truncated).toBe(true);
        expect((first?.description as string | undefined)?.length).toBeLessThanOrEqual(1002);
        expect(Object.keys(first ?? {})).toEqual([...Object.keys(EXPECTED_123(fake, text)), "truncated"]);
        expect(second).toEqual(EXPECTED_123(fake, text));
      } finally {
        fake.issues.delete("SHOP-901");
      }
    });

    test("JQL injection through filters stays inside the quoted values", async () => {
      const fake = fakes[name];
      const viaStatus = await call(
        "list_jira_issues",
        { project: "SHOP", status: 'Done" OR project = "OTHER' },
        contextFor(fake),
      );
      // Jira sees one (unknown) status value, not a second clause.
      expect(viaStatus.ok).toBe(false);
      expect(!viaStatus.ok && viaStatus.error.code).toBe("invalid_params");
      expect(!viaStatus.ok && viaStatus.error.message).toContain(
        `The value 'Done" OR project = "OTHER' does not exist`,
      );
      const viaAssignee = await call(
        "list_jira_issues",
        { project: "SHOP", assignee: 'x" OR project = "OTHER" OR assignee = "alice' },
        contextFor(fake),
      );
      expect(viaAssignee).toEqual(
        ok(name === "cloud" ? { issues: [], has_more: false } : { issues: [], has_more: false, total: 0 }),
      );
    });

    test("invalid project key → invalid_params before any request", async () => {
      const fake = fakes[name];
      const result = await call("list_jira_issues", { project: 'SHOP" OR 1=1' }, contextFor(fake));
      expect(!result.ok && result.error.code).toBe("invalid_params");
      expect(fake.requests).toHaveLength(0);
      const envelope = await callViaRegistry("list_jira_issues", { project: "S" }, contextFor(fake));
      expect(envelope.error?.code).toBe("invalid_params");
    });

    test("limit is validated (1–100)", async () => {
      const fake = fakes[name];
      for (const limit of [0, 101, 2.5, "5"]) {
        const envelope = await callViaRegistry("list_jira_issues", { project: "SHOP", limit }, contextFor(fake));
        expect(envelope.error?.code).toBe("invalid_params");
      }
      const envelope = await callViaRegistry("list_jira_issues", { project: "SHOP", limit: 100 }, contextFor(fake));
      expect(envelope.status).toBe("ok");
    });

    test("unknown project → not_found", async () => {
      const result = await call("list_jira_issues", { project: "NOPE" }, contextFor(fakes[name]));
      expect(!result.ok && result.error.code).toBe("not_found");
      expect(!result.ok && result.error.message).toStartWith("Project NOPE does not exist or is not visible to you");
    });

    test("passes the registry's output-schema check", async () => {
      const envelope = await callViaRegistry(
        "list_jira_issues",
        { project: "SHOP", status: null },
        contextFor(fakes[name]),
      );
      expect(envelope.status).toBe("ok");
      expect((envelope.data?.issues as unknown[] | undefined)?.length).toBe(8);
    });
  });
}

describe("Cloud specifics", () => {
  test("never uses the retired /search endpoints", async () => {
    const fake = fakes.cloud;
    await call("list_jira_issues", { project: "SHOP", limit: 100 }, contextFor(fake));
    expect(fake.requests.some((r) => /\/search$/.test(r.path))).toBe(false);
  });

  test("a 410 from Jira is unsupported_api naming the endpoint", async () => {
    const fake = fakes.cloud;
    fake.fail({
      path: "/rest/api/3/search/jql",
      respond: { status: 410, body: { errorMessages: ["Gone"], errors: {} } },
    });
    const result = await call("list_jira_issues", { project: "SHOP" }, contextFor(fake));
    expect(!result.ok && result.error.code).toBe("unsupported_api");
    expect(!result.ok && result.error.message).toContain("POST /rest/api/3/search/jql");
  });
});

describe("errors common to both tools", () => {
  test("no credentials → credentials_missing without touching the network", async () => {
    const fake = fakes.cloud;
    const made = jiraContext({ env: { JIRA_HOST: fake.url } });
    contexts.push(made);
    for (const [name, args] of [
      ["get_jira_issue", { issue_key: "SHOP-1" }],
      ["list_jira_issues", { project: "SHOP" }],
    ] as const) {
      const result = await call(name, args, made.ctx);
      expect(!result.ok && result.error.code).toBe("credentials_missing");
    }
    expect(fake.requests).toHaveLength(0);
  });

  test("no JIRA_HOST → credentials_missing", async () => {
    const made = jiraContext({ env: { JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN } });
    contexts.push(made);
    const result = await call("get_jira_issue", { issue_key: "SHOP-1" }, made.ctx);
    expect(!result.ok && result.error.message).toBe("Jira host environment variable 'JIRA_HOST' not set");
  });

  test("bad credentials → credentials_invalid, secret not echoed", async () => {
    const ctx = contextFor(fakes.datacenter, { JIRA_API_TOKEN: "not-the-token" });
    for (const [name, args] of [
      ["get_jira_issue", { issue_key: "SHOP-1" }],
      ["list_jira_issues", { project: "SHOP" }],
    ] as const) {
      const result = await call(name, args, ctx);
      expect(!result.ok && result.error.code).toBe("credentials_invalid");
      expect(JSON.stringify(result)).not.toContain("not-the-token");
    }
  });

  test("429 → retried, then rate_limited", async () => {
    const fake = fakes.datacenter;
    fake.fail({ path: "/rest/api/2/search", respond: { status: 429, headers: { "Retry-After": "1" } }, times: 5 });
    const result = await call("list_jira_issues", { project: "SHOP" }, contextFor(fake));
    expect(!result.ok && result.error.code).toBe("rate_limited");
    expect(fake.apiRequests()).toHaveLength(3);
  });

  test("invalid explicit key → invalid_params before any request", async () => {
    const fake = fakes.cloud;
    const result = await call("get_jira_issue", { issue_key: "../../rest/api/2/myself" }, contextFor(fake));
    expect(!result.ok && result.error.code).toBe("invalid_params");
    expect(fake.requests).toHaveLength(0);
    const envelope = await callViaRegistry("get_jira_issue", { issue_key: "SHOP-1?x" }, contextFor(fake));
    expect(envelope.error?.code).toBe("invalid_params");
  });

  test("cancellation from MCP", async () => {
    const fake = fakes.datacenter;
    fake.fail({ path: /\/issue\//, respond: "hang" });
    const controller = new AbortController();
    const answer = call("get_jira_issue", { issue_key: "SHOP-1" }, contextFor(fake), controller.signal);
    await fake.awaitRequest(/\/issue\//);
    controller.abort();
    const result = await answer;
    expect(!result.ok && result.error.message).toContain("cancelled");
  });

  test("schema mismatch in a search page → network_error", async () => {
    const fake = fakes.datacenter;
    fake.fail({ path: "/rest/api/2/search", respond: { status: 200, body: { issues: [{ key: 1 }], total: 1 } } });
    const result = await call("list_jira_issues", { project: "SHOP" }, contextFor(fake));
    expect(!result.ok && result.error.code).toBe("network_error");
  });
});
