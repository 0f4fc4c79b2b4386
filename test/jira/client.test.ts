import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { abortableSleep, parseRetryAfter } from "../../src/core/http-policy.ts";
import type { Result } from "../../src/core/result.ts";
import type { JiraClient, JiraClientOptions } from "../../src/jira/client.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import { FakeJira } from "../support/fake-jira.ts";
import { API_TOKEN, BASIC_AUTH, EMAIL, type JiraTestContext, jiraContext, never, recordingSleep } from "./helpers.ts";

const Anything = v.unknown();
const IssueKeyOnly = v.object({ key: v.string() });

let cloud: FakeJira;
let server: FakeJira;
const contexts: JiraTestContext[] = [];

beforeAll(() => {
  cloud = FakeJira.start({ deployment: "cloud", expectedAuthorization: BASIC_AUTH });
  server = FakeJira.start({ deployment: "datacenter", expectedAuthorization: BASIC_AUTH });
  for (const fake of [cloud, server]) fake.addIssues({ key: "SHOP-1", summary: "First", wiki: "x", adf: null });
});
afterAll(async () => {
  await cloud.stop();
  await server.stop();
});
afterEach(() => {
  for (const fake of [cloud, server]) {
    fake.clearFaults();
    fake.requests.length = 0;
  }
  for (const c of contexts.splice(0)) c.cleanup();
});

function contextFor(fake: FakeJira, env: Record<string, string> = {}): ServiceContext {
  const made = jiraContext({ env: { JIRA_HOST: fake.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN, ...env } });
  contexts.push(made);
  return made.ctx;
}

async function clientFor(ctx: ServiceContext, options?: JiraClientOptions): Promise<JiraClient> {
  const client = await ctx.jira(options);
  if (!client.ok) throw new Error(client.error.message);
  return client.value;
}

function getIssue(client: JiraClient, signal = never(), key = "SHOP-1") {
  return client.request(
    {
      method: "GET",
      path: `/rest/api/2/issue/${key}`,
      schema: IssueKeyOnly,
      purpose: { notFound: `Issue ${key} does not exist or is not visible to you` },
    },
    signal,
  );
}

function expectError(result: Result<unknown>, code: string): { code: string; message: string; hint?: string } {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("expected an error");
  expect(result.error.code).toBe(code as never);
  expect(JSON.stringify(result.error)).not.toContain(API_TOKEN);
  return result.error;
}

describe("requests", () => {
  test("headers: Basic auth, User-Agent, Accept; JSON body on POST", async () => {
    const client = await clientFor(contextFor(server));
    const got = await getIssue(client);
    expect(got).toEqual({ ok: true, value: { key: "SHOP-1" } });
    const post = await client.request(
      { method: "POST", path: "/rest/api/2/search", body: { jql: 'project = "SHOP"' }, schema: Anything },
      never(),
    );
    expect(post.ok).toBe(true);
    const [first, second] = server.requests;
    expect(first?.headers.authorization).toBe(BASIC_AUTH);
    expect(first?.headers["user-agent"]).toMatch(/^twig-mcp\/\d+\.\d+\.\d+/);
    expect(first?.headers.accept).toBe("application/json");
    expect(second?.method).toBe("POST");
    expect(second?.headers["content-type"]).toBe("application/json");
    expect(second?.body).toEqual({ jql: 'project = "SHOP"' });
  });

  test("query parameters are encoded", async () => {
    const client = await clientFor(contextFor(server));
    await client.request(
      {
        method: "GET",
        path: "/rest/api/2/issue/SHOP-1",
        query: { fields: "summary,status", x: "a b&c" },
        schema: Anything,
      },
      never(),
    );
    expect(server.requests[0]?.query).toEqual({ fields: "summary,status", x: "a b&c" });
  });

  test("Bearer auth with JIRA_PERSONAL_TOKEN", async () => {
    const made = jiraContext({ env: { JIRA_HOST: server.url, JIRA_PERSONAL_TOKEN: "pat-abc" } });
    contexts.push(made);
    const client = await clientFor(made.ctx);
    await getIssue(client);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer pat-abc");
  });

  test("netrc credentials for the host (port kept in the machine name)", async () => {
    const machine = server.url.replace("http://", "");
    const made = jiraContext({
      env: { JIRA_HOST: server.url },
      netrc: `machine ${machine} login ${EMAIL} password ${API_TOKEN}\n`,
    });
    contexts.push(made);
    const client = await clientFor(made.ctx);
    expect(client.credentialSource).toBe(`~/.netrc (machine "${machine}")`);
    expect((await getIssue(client)).ok).toBe(true);
  });

  test("browse URL", async () => {
    const client = await clientFor(contextFor(server));
    expect(client.browseUrl("SHOP-1")).toBe(`${server.url}/browse/SHOP-1`);
  });
});

describe("client cache", () => {
  test("same configuration → same client; changed credentials → new client; failures are not cached", async () => {
    const ctx = contextFor(server);
    const a = await clientFor(ctx);
    expect(await clientFor(ctx)).toBe(a);
    const changed = { ...ctx, env: { ...ctx.env, JIRA_API_TOKEN: "other" } };
    const b = await clientFor(changed);
    expect(b).not.toBe(a);

    const broken = { ...ctx, env: { JIRA_HOST: server.url } };
    expectError(await broken.jira(), "credentials_missing");
    expect(await clientFor(ctx)).not.toBe(b);
    const fixed = await { ...broken, env: { ...broken.env, JIRA_PERSONAL_TOKEN: "p" } }.jira();
    expect(fixed.ok).toBe(true);
  });
});

describe("deployment detection", () => {
  test("serverInfo deploymentType Cloud → cloud; Server/DataCenter → server", async () => {
    expect(await (await clientFor(contextFor(cloud))).deployment(never())).toEqual({ ok: true, value: "cloud" });
    expect(await (await clientFor(contextFor(server))).deployment(never())).toEqual({ ok: true, value: "server" });
    const plainServer = FakeJira.start({ deployment: "server" });
    try {
      expect(await (await clientFor(contextFor(plainServer))).deployment(never())).toEqual({
        ok: true,
        value: "server",
      });
    } finally {
      await plainServer.stop();
    }
  });

  test("asked once per base URL and remembered, also across clients; concurrent callers share the request", async () => {
    cloud.latencyMs = 30;
    try {
      const ctx = contextFor(cloud);
      const client = await clientFor(ctx);
      const results = await Promise.all([
        client.deployment(never()),
        client.deployment(never()),
        client.deployment(never()),
      ]);
      expect(results.every((r) => r.ok && r.value === "cloud")).toBe(true);
      await client.deployment(never());
      const other = await clientFor({ ...ctx, env: { ...ctx.env, JIRA_API_TOKEN: "different" } });
      await other.deployment(never());
      expect(cloud.requests.filter((r) => r.path === "/rest/api/2/serverInfo")).toHaveLength(1);
    } finally {
      cloud.latencyMs = 0;
    }
  });

  test("a failed detection is not remembered", async () => {
    const ctx = contextFor(cloud);
    const client = await clientFor(ctx, recordingSleep().options);
    cloud.fail({ path: "/rest/api/2/serverInfo", respond: { status: 500, body: "boom" } });
    expectError(await client.deployment(never()), "network_error");
    expect(await client.deployment(never())).toEqual({ ok: true, value: "cloud" });
    expect(cloud.requests.filter((r) => r.path === "/rest/api/2/serverInfo")).toHaveLength(2);
  });

  test("*.atlassian.net is Cloud without asking", async () => {
    const made = jiraContext({
      env: { JIRA_HOST: "company.atlassian.net", JIRA_PERSONAL_TOKEN: "p" },
    });
    contexts.push(made);
    let calls = 0;
    made.ctx.fetch = (async () => {
      calls++;
      throw new Error("no network in tests");
    }) as unknown as typeof fetch;
    const client = await clientFor(made.ctx);
    expect(await client.deployment(never())).toEqual({ ok: true, value: "cloud" });
    expect(calls).toBe(0);
    expect(client.browseUrl("SHOP-1")).toBe("https://company.atlassian.net/browse/SHOP-1");
  });

  test("a caller that cancels stops waiting; detection still completes for others", async () => {
    let release = () => {};
    cloud.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const client = await clientFor(contextFor(cloud));
      const controller = new AbortController();
      const first = client.deployment(controller.signal);
      const second = client.deployment(never());
      await cloud.awaitRequest("/rest/api/2/serverInfo");
      controller.abort();
      // The server is still holding its answer: the cancelled caller returns without it.
      expectError(await first, "cancelled");
      release();
      expect(await second).toEqual({ ok: true, value: "cloud" });
    } finally {
      cloud.hold = null;
      release();
    }
  });
});

describe("error mapping", () => {
  test("401 → credentials_invalid naming the credential source, never the secret", async () => {
    const client = await clientFor(contextFor(server, { JIRA_API_TOKEN: "wrong-token" }));
    const error = expectError(await getIssue(client), "credentials_invalid");
    expect(error.message).toContain("rejected the credentials from $JIRA_EMAIL and $JIRA_API_TOKEN (HTTP 401");
    expect(error.message).toContain("login reason: AUTHENTICATED_FAILED");
    expect(error.message).toContain("You are not authenticated");
    expect(error.message).not.toContain("wrong-token");
  });

  test("401 from Cloud (text body)", async () => {
    const client = await clientFor(contextFor(cloud, { JIRA_API_TOKEN: "wrong-token" }));
    const error = expectError(await getIssue(client), "credentials_invalid");
    expect(error.message).not.toContain("<");
  });

  test("403 → credentials_invalid; CAPTCHA gets its own hint", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({
      respond: {
        status: 403,
        headers: { "X-Seraph-LoginReason": "AUTHENTICATION_DENIED", "content-type": "application/json" },
        body: { errorMessages: ["CAPTCHA_CHALLENGE"], errors: {} },
      },
    });
    const error = expectError(await getIssue(client), "credentials_invalid");
    expect(error.hint).toContain("CAPTCHA");
  });

  test("404 → not_found with the caller's sentence and Jira's message", async () => {
    const client = await clientFor(contextFor(server));
    const error = expectError(await getIssue(client, never(), "SHOP-999"), "not_found");
    expect(error.message).toBe(
      "Issue SHOP-999 does not exist or is not visible to you: Issue does not exist or you do not have permission to see it.",
    );
  });

  test("410 → unsupported_api naming the endpoint", async () => {
    const client = await clientFor(contextFor(cloud));
    const gone = await client.request(
      { method: "POST", path: "/rest/api/3/search", body: {}, schema: Anything },
      never(),
    );
    const error = expectError(gone, "unsupported_api");
    expect(error.message).toContain("no longer supports POST /rest/api/3/search (HTTP 410 Gone)");
    expect(error.message).toContain("migrate to the /rest/api/3/search/jql API");
  });

  test("400 → invalid_params with Jira's messages", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({
      respond: { status: 400, body: { errorMessages: [], errors: { jql: "Field 'x' does not exist." } } },
    });
    const error = expectError(await getIssue(client), "invalid_params");
    expect(error.message).toContain("jql: Field 'x' does not exist.");
  });

  test("500 → network_error, not retried", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ respond: { status: 500, body: { errorMessages: ["Internal server error"] } }, times: 5 });
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("HTTP 500");
    expect(server.requests).toHaveLength(1);
    expect(sleep.waits).toEqual([]);
  });

  test("redirects are reported, not followed", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({ respond: { status: 302, headers: { location: "https://sso.example.com/login?token=abc" } } });
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("redirected GET /rest/api/2/issue/SHOP-1 to https://sso.example.com/login");
    expect(error.message).not.toContain("token=abc");
    expect(server.requests).toHaveLength(1);
  });

  test("HTML instead of JSON", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({ respond: "html" });
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("returned an HTML page instead of JSON");
    expect(error.message).not.toContain("<html");
  });

  test("truncated JSON and empty body", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({ respond: "truncated-json" });
    expect(expectError(await getIssue(client), "network_error").message).toContain("malformed JSON");
    server.fail({ respond: "empty-body" });
    expect(expectError(await getIssue(client), "network_error").message).toContain("empty body");
  });

  test("JSON of the wrong shape", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({ respond: { status: 200, body: { key: 42 } } });
    expect(expectError(await getIssue(client), "network_error").message).toContain("unexpected response");
  });

  test("oversized body", async () => {
    const client = await clientFor(contextFor(server), { maxResponseBytes: 64 });
    server.fail({ respond: { status: 200, body: { key: "SHOP-1", padding: "x".repeat(200) } } });
    expect(expectError(await getIssue(client), "network_error").message).toContain("more than 64 bytes");
  });

  test("transport failure → network_error", async () => {
    const gone = FakeJira.start({ deployment: "server" });
    const ctx = contextFor(gone);
    await gone.stop();
    const client = await clientFor(ctx);
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("Could not reach Jira at http://127.0.0.1:");
    expect(error.hint).toContain("JIRA_HOST");
  });
});

describe("retries", () => {
  test("429 honours Retry-After (seconds), then succeeds", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({
      respond: { status: 429, headers: { "Retry-After": "2" }, body: { errorMessages: ["Rate limited"] } },
    });
    expect(await getIssue(client)).toEqual({ ok: true, value: { key: "SHOP-1" } });
    expect(sleep.waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  test("429 every time → rate_limited after the bounded attempts", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ respond: { status: 429, headers: { "Retry-After": "1" } }, times: 10 });
    const error = expectError(await getIssue(client), "rate_limited");
    expect(error.message).toContain("HTTP 429 on GET /rest/api/2/issue/SHOP-1");
    expect(error.message).toContain("retry after 1 s");
    expect(server.requests).toHaveLength(3);
    expect(sleep.waits).toEqual([1000, 1000]);
  });

  test("a Retry-After beyond the cap is not waited for", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ respond: { status: 429, headers: { "Retry-After": "120" } } });
    const error = expectError(await getIssue(client), "rate_limited");
    expect(error.message).toContain("retry after 120 s");
    expect(sleep.waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  test("503 without Retry-After backs off exponentially, then network_error", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ respond: { status: 503, body: "Service Unavailable" }, times: 3 });
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("HTTP 503");
    expect(sleep.waits).toEqual([500, 1000]);
  });

  test("503 then success", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ respond: { status: 503 }, times: 2 });
    expect((await getIssue(client)).ok).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  test("retries are POSTed again with the same body", async () => {
    const sleep = recordingSleep();
    const client = await clientFor(contextFor(server), sleep.options);
    server.fail({ path: "/rest/api/2/search", respond: { status: 429, headers: { "Retry-After": "0" } } });
    const body = { jql: 'project = "SHOP" ORDER BY updated DESC', startAt: 0, maxResults: 5, fields: ["summary"] };
    const result = await client.request(
      { method: "POST", path: "/rest/api/2/search", body, schema: Anything },
      never(),
    );
    expect(result.ok).toBe(true);
    expect(server.requests.map((r) => r.body)).toEqual([body, body]);
    expect(sleep.waits).toEqual([0]);
  });

  test("cancellation during the wait ends the retries", async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    // The real abortable sleep, cancelled once the wait has begun: a wait that ignored the signal
    // would last the full five minutes and the test would time out.
    const client = await clientFor(contextFor(server), {
      maxRetryWaitMs: 600_000,
      sleep: (ms, signal) => {
        waits.push(ms);
        const waiting = abortableSleep(ms, signal);
        controller.abort();
        return waiting;
      },
    });
    server.fail({ respond: { status: 503, headers: { "Retry-After": "300" } } });
    const error = expectError(await getIssue(client, controller.signal), "cancelled");
    expect(error.message).toContain("cancelled");
    expect(waits).toEqual([300_000]);
    expect(server.apiRequests()).toHaveLength(1);
  });

  test("parseRetryAfter: seconds, HTTP date, garbage", () => {
    const now = new Date("2025-06-03T12:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Tue, 03 Jun 2025 12:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Tue, 03 Jun 2025 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("timeouts and cancellation", () => {
  test("no answer within TWIG_MCP_HTTP_TIMEOUT_MS → network_error", async () => {
    const client = await clientFor(contextFor(server, { TWIG_MCP_HTTP_TIMEOUT_MS: "100" }));
    server.fail({ respond: "hang" });
    // The fake hangs for 30 s: only the client's own timeout ends this call within the test's limit.
    const error = expectError(await getIssue(client), "network_error");
    expect(error.message).toContain("did not answer GET /rest/api/2/issue/SHOP-1 within 100 ms");
    expect(error.hint).toContain("TWIG_MCP_HTTP_TIMEOUT_MS");
  });

  test("a body that stalls also times out", async () => {
    const client = await clientFor(contextFor(server, { TWIG_MCP_HTTP_TIMEOUT_MS: "150" }));
    server.fail({ respond: "stall-body" });
    expect(expectError(await getIssue(client), "network_error").message).toContain("within 150 ms");
  });

  test("slow but in time is fine", async () => {
    const client = await clientFor(contextFor(server, { TWIG_MCP_HTTP_TIMEOUT_MS: "2000" }));
    server.fail({ respond: { status: 200, body: { key: "SHOP-1" } }, delayMs: 50 });
    expect((await getIssue(client)).ok).toBe(true);
  });

  test("an invalid timeout setting falls back to the default with a warning", async () => {
    const ctx = contextFor(server, { TWIG_MCP_HTTP_TIMEOUT_MS: "soon" });
    const warnings: string[] = [];
    ctx.log = { ...ctx.log, warn: (m: string) => warnings.push(m) };
    const client = await clientFor(ctx);
    expect((await getIssue(client)).ok).toBe(true);
    expect(warnings.join("\n")).toContain("Ignoring TWIG_MCP_HTTP_TIMEOUT_MS");
  });

  test("MCP cancellation aborts the request in flight", async () => {
    const client = await clientFor(contextFor(server));
    server.fail({ respond: "hang" });
    const controller = new AbortController();
    const answer = getIssue(client, controller.signal);
    // Cancelled once the request is at the server, which then hangs for 30 s unless the client
    // hangs up: an abort the client ignored would time the test out.
    await server.awaitRequest("/rest/api/2/issue/SHOP-1");
    controller.abort();
    const error = expectError(await answer, "cancelled");
    expect(error.message).toBe("Jira request GET /rest/api/2/issue/SHOP-1 was cancelled");
  });

  test("an already-cancelled call sends nothing", async () => {
    const client = await clientFor(contextFor(server));
    const controller = new AbortController();
    controller.abort();
    expectError(await getIssue(client, controller.signal), "cancelled");
    expect(server.requests).toHaveLength(0);
  });
});
