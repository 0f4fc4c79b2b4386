/**
 * GitHub and Jira misbehaving, through the compiled binary: a fault proxy sits between the server
 * and the fake APIs and answers slowly, drops connections, cuts bodies short, sends HTML pages,
 * bursts of 5xx, 429s with Retry-After and secondary rate limits. Retries stay bounded, errors
 * are clear tool results, other calls are answered meanwhile, and cancellation reaches the socket.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { FaultProxy, HTML_ERROR_PAGE } from "../support/fault-proxy.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { RawServer, type ToolResult } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const GH_TOKEN = "ghp_networkFAULTtoken000000000000000000";
const JIRA_TOKEN = "jira-network-fault-token-0123456789";
// Long enough that a busy machine never mistakes a slow local answer for the timeout firing, short
// enough that the tests which wait it out stay quick.
const TIMEOUT_MS = 1500;
const PR = /^\/repos\/octo\/shop\/pulls\/43$/;
const ISSUE = "/rest/api/2/issue/SHOP-123";

let world: World;
const github = useFakeGitHub({ token: GH_TOKEN, resetAfterEach: false });
let jira: FakeJira;
let ghProxy: FaultProxy;
let jiraProxy: FaultProxy;
let server: RawServer;

beforeAll(async () => {
  github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", title: "Auth UI" });
  jira = FakeJira.start({ deployment: "server" });
  jira.addIssues({
    key: "SHOP-123",
    summary: "Checkout fails for guests",
    status: "In Progress",
    assignee: USERS.alice,
  });
  ghProxy = await FaultProxy.start(github.url);
  jiraProxy = await FaultProxy.start(jira.url);
  world = makeWorld({
    GITHUB_API_URL: ghProxy.url,
    GH_TOKEN,
    JIRA_HOST: jiraProxy.url,
    JIRA_EMAIL: "alice@example.com",
    JIRA_API_TOKEN: JIRA_TOKEN,
    TWIG_MCP_HTTP_TIMEOUT_MS: String(TIMEOUT_MS),
    TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1",
    TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS: "10",
  });
  server = await RawServer.start({ cwd: world.root, env: world.env, args: ["-vvv"] });
  await server.initialize();
  // Jira's deployment is detected once; do it before any fault is armed.
  expect((await server.call("get_jira_issue", { issue_key: "SHOP-123" })).isError).toBe(false);
});

afterAll(async () => {
  await server?.close();
  await ghProxy?.stop();
  await jiraProxy?.stop();
  await jira?.stop();
  world?.cleanup();
});

beforeEach(() => {
  ghProxy.reset();
  jiraProxy.reset();
});

function expectError(result: ToolResult, code: string): NonNullable<ToolResult["envelope"]["error"]> {
  expect(result.isError).toBe(true);
  expect(result.envelope.error?.code).toBe(code);
  const error = result.envelope.error as NonNullable<ToolResult["envelope"]["error"]>;
  expect(error.message).not.toContain("<html");
  expect(error.message).not.toContain(GH_TOKEN);
  expect(error.message).not.toContain(JIRA_TOKEN);
  return error;
}

describe("GitHub", () => {
  const getPr = () => server.call("get_pull_request", { pr_number: 43 });

  test("a server that never answers: network_error after the timeout, not retried, other calls answered meanwhile", async () => {
    ghProxy.add({ path: PR, times: Number.POSITIVE_INFINITY, fault: { kind: "hang" } });
    let slowDone = false;
    const slow = getPr().finally(() => {
      slowDone = true;
    });
    await ghProxy.arrival(PR);
    // Answered while the GitHub call still waits for its timeout.
    const local = await server.call("get_branch_tree");
    expect(local.isError).toBe(false);
    const jiraMeanwhile = await server.call("get_jira_issue", { issue_key: "SHOP-123" });
    expect(jiraMeanwhile.isError).toBe(false);
    expect(slowDone).toBe(false);
    const error = expectError(await slow, "network_error");
    expect(error.message).toContain(`within ${TIMEOUT_MS} ms`);
    expect(error.hint).toContain("TWIG_MCP_HTTP_TIMEOUT_MS");
    expect(ghProxy.requestsTo(PR)).toHaveLength(1);
  });

  test("a slow answer beyond the timeout is a timeout; within it, a result", async () => {
    // No answer at all is the slowest answer there is; the timeout, not the proxy, ends the call.
    ghProxy.add({ path: PR, fault: { kind: "hang" } });
    expectError(await getPr(), "network_error");
    ghProxy.add({ path: PR, fault: { kind: "delay", ms: 100 } });
    expect((await getPr()).structured).toMatchObject({ number: 43 });
  });

  test("dropped connections are retried twice, then network_error", async () => {
    ghProxy.add({ path: PR, times: Number.POSITIVE_INFINITY, fault: { kind: "reset" } });
    const error = expectError(await getPr(), "network_error");
    expect(error.message).toContain("Could not reach GitHub");
    expect(ghProxy.requestsTo(PR)).toHaveLength(3);
    ghProxy.reset();
    ghProxy.add({ path: PR, times: 2, fault: { kind: "reset" } });
    expect((await getPr()).isError).toBe(false);
    expect(ghProxy.requestsTo(PR)).toHaveLength(3);
  });

  test("a body cut short of its Content-Length, or JSON cut short, is network_error", async () => {
    const json = JSON.stringify({ number: 43, title: "x".repeat(200) });
    ghProxy.add({ path: PR, times: 3, fault: { kind: "truncate", body: json, sendBytes: 40 } });
    expectError(await getPr(), "network_error");
    expect(ghProxy.requestsTo(PR).length).toBeLessThanOrEqual(3);
    ghProxy.reset();
    ghProxy.add({
      path: PR,
      fault: { kind: "respond", status: 200, body: json.slice(0, 40), headers: { "content-type": "application/json" } },
    });
    expectError(await getPr(), "network_error");
  });

  test("HTML error pages and 5xx bursts: retried twice, then a clear network_error", async () => {
    ghProxy.add({
      path: PR,
      times: Number.POSITIVE_INFINITY,
      fault: { kind: "respond", status: 502, body: HTML_ERROR_PAGE, headers: { "content-type": "text/html" } },
    });
    const error = expectError(await getPr(), "network_error");
    expect(error.message).toContain("HTTP 502");
    expect(error.hint).toContain("githubstatus");
    expect(ghProxy.requestsTo(PR)).toHaveLength(3);

    for (const status of [500, 502, 503]) {
      ghProxy.reset();
      ghProxy.add({ path: PR, times: 2, fault: { kind: "respond", status, body: '{"message":"Server Error"}' } });
      const result = await getPr();
      expect(result.structured).toMatchObject({ number: 43 });
      expect(ghProxy.requestsTo(PR)).toHaveLength(3);
    }
  });

  test("429 with Retry-After: a short secondary limit is waited out once, anything else is rate_limited at once", async () => {
    const secondary = '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes."}';
    ghProxy.add({
      path: PR,
      fault: { kind: "respond", status: 429, headers: { "retry-after": "2" }, body: secondary },
    });
    expect((await getPr()).isError).toBe(false);
    expect(ghProxy.requestsTo(PR)).toHaveLength(2);

    ghProxy.reset();
    ghProxy.add({
      path: PR,
      times: Number.POSITIVE_INFINITY,
      fault: { kind: "respond", status: 429, headers: { "retry-after": "2" }, body: '{"message":"slow down"}' },
    });
    const plain = expectError(await getPr(), "rate_limited");
    expect(plain.message).toContain("retry after 2 s");
    expect(ghProxy.requestsTo(PR)).toHaveLength(1);

    ghProxy.reset();
    ghProxy.add({
      path: PR,
      times: Number.POSITIVE_INFINITY,
      fault: { kind: "respond", status: 429, headers: { "retry-after": "3600" }, body: secondary },
    });
    // Reported at once: waiting out an hour would time the test out.
    const error = expectError(await getPr(), "rate_limited");
    expect(error.message).toContain("3600 s");
    expect(error.hint).toBeString();
    expect(ghProxy.requestsTo(PR)).toHaveLength(1);
  });

  test("an exhausted primary rate limit resetting within 5 s is waited out once; a later reset is reported", async () => {
    const exhausted = (resetInSeconds: number) => ({
      kind: "respond" as const,
      status: 403,
      headers: {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-limit": "5000",
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + resetInSeconds),
      },
      body: '{"message":"API rate limit exceeded for user ID 1."}',
    });
    ghProxy.add({ path: PR, fault: exhausted(1) });
    expect((await getPr()).isError).toBe(false);
    expect(ghProxy.requestsTo(PR)).toHaveLength(2);
    ghProxy.reset();
    ghProxy.add({ path: PR, times: Number.POSITIVE_INFINITY, fault: exhausted(3600) });
    expect(expectError(await getPr(), "rate_limited").message).toContain("5000 requests per hour");
    expect(ghProxy.requestsTo(PR)).toHaveLength(1);
  });

  test("a secondary rate limit (403) is rate_limited, not a credentials problem", async () => {
    ghProxy.add({
      path: PR,
      times: Number.POSITIVE_INFINITY,
      fault: {
        kind: "respond",
        status: 403,
        headers: { "retry-after": "60", "content-type": "application/json" },
        body: JSON.stringify({
          message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
        }),
      },
    });
    expectError(await getPr(), "rate_limited");
    expect(ghProxy.requestsTo(PR).length).toBeLessThanOrEqual(2);
  });

  test("cancelling the MCP request aborts the HTTP request; no answer is sent for it", async () => {
    ghProxy.add({ path: PR, times: Number.POSITIVE_INFINITY, fault: { kind: "hang" } });
    const id = "cancel-github";
    server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_pull_request", arguments: { pr_number: 43 } },
    });
    const request = await ghProxy.arrival(PR);
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user" } });
    // The server hangs up on the proxy, and before its own timeout would have: the request still
    // counts as abandoned (not answered) only if the cancellation closed it.
    await ghProxy.until(() => request.abandonedAt !== undefined);
    expect(request.answeredAt).toBeUndefined();
    // A call made after the cancellation is answered; the cancelled one never is (an answer to it
    // would have been written as soon as its request was dropped, before this one).
    expect((await server.call("get_current_branch")).isError).toBe(false);
    expect(server.responsesTo(id)).toEqual([]);
    expect(ghProxy.requestsTo(PR)).toHaveLength(1);
  });
});

describe("Jira", () => {
  const getIssue = () => server.call("get_jira_issue", { issue_key: "SHOP-123" });

  test("a server that never answers: network_error after the timeout; other calls answered meanwhile", async () => {
    jiraProxy.add({ path: ISSUE, times: Number.POSITIVE_INFINITY, fault: { kind: "hang" } });
    let slowDone = false;
    const slow = getIssue().finally(() => {
      slowDone = true;
    });
    await jiraProxy.arrival(ISSUE);
    // Answered while the Jira call still waits for its timeout.
    expect((await server.call("list_branches")).isError).toBe(false);
    expect(slowDone).toBe(false);
    const error = expectError(await slow, "network_error");
    expect(error.message).toContain(`within ${TIMEOUT_MS} ms`);
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(1);
  });

  test("a dropped connection is network_error naming the site; not retried", async () => {
    jiraProxy.add({ path: ISSUE, times: Number.POSITIVE_INFINITY, fault: { kind: "reset" } });
    const error = expectError(await getIssue(), "network_error");
    expect(error.message).toContain("Could not reach Jira");
    expect(error.hint).toContain("JIRA_HOST");
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(1);
  });

  test("truncated bodies, truncated JSON and HTML pages are network_error", async () => {
    const body = '{"key":"SHOP-123","fields":{"summary":"Checkout fails for guests","status":{"name":"Done"}}}';
    jiraProxy.add({ path: ISSUE, fault: { kind: "truncate", body, sendBytes: 30 } });
    expectError(await getIssue(), "network_error");
    jiraProxy.add({
      path: ISSUE,
      fault: { kind: "respond", status: 200, body: body.slice(0, 30), headers: { "content-type": "application/json" } },
    });
    expect(expectError(await getIssue(), "network_error").message).toContain("malformed JSON");
    jiraProxy.add({
      path: ISSUE,
      fault: { kind: "respond", status: 200, body: HTML_ERROR_PAGE, headers: { "content-type": "text/html" } },
    });
    const html = expectError(await getIssue(), "network_error");
    expect(html.message).toContain("HTML page");
    expect(html.hint).toBeString();
  });

  test("503 bursts are retried (bounded); 500 is reported at once, 502 after the same bounded retries", async () => {
    jiraProxy.add({ path: ISSUE, times: 2, fault: { kind: "respond", status: 503, headers: { "retry-after": "0" } } });
    expect((await getIssue()).structured).toMatchObject({ key: "SHOP-123" });
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(3);

    jiraProxy.reset();
    jiraProxy.add({
      path: ISSUE,
      times: Number.POSITIVE_INFINITY,
      fault: { kind: "respond", status: 503, headers: { "retry-after": "0" }, body: HTML_ERROR_PAGE },
    });
    const exhausted = expectError(await getIssue(), "network_error");
    expect(exhausted.message).toContain("HTTP 503");
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(3);

    for (const [status, attempts] of [
      [500, 1],
      [502, 3],
    ] as const) {
      jiraProxy.reset();
      const fault = { kind: "respond", status, headers: { "retry-after": "0" }, body: HTML_ERROR_PAGE } as const;
      jiraProxy.add({ path: ISSUE, times: Number.POSITIVE_INFINITY, fault });
      expect(expectError(await getIssue(), "network_error").message).toContain(`HTTP ${status}`);
      expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(attempts);
    }
  });

  test("429 with Retry-After is waited out when short, reported when long", async () => {
    jiraProxy.add({ path: ISSUE, fault: { kind: "respond", status: 429, headers: { "retry-after": "1" } } });
    const logged = server.stderr().length;
    expect((await getIssue()).isError).toBe(false);
    // The wait the server chose, from its own log (-vvv), rather than a clock in this process.
    expect(server.stderr().slice(logged)).toContain("in 1000 ms");
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(2);

    jiraProxy.reset();
    jiraProxy.add({
      path: ISSUE,
      times: Number.POSITIVE_INFINITY,
      fault: {
        kind: "respond",
        status: 429,
        headers: { "retry-after": "120" },
        body: '{"errorMessages":["Rate limit exceeded."]}',
      },
    });
    // Reported at once: waiting out two minutes would time the test out.
    expect(expectError(await getIssue(), "rate_limited").message).toContain("120 s");
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(1);
  });

  test("cancelling the MCP request aborts the HTTP request and a pending retry wait", async () => {
    jiraProxy.add({ path: ISSUE, times: Number.POSITIVE_INFINITY, fault: { kind: "hang" } });
    const id = "cancel-jira";
    server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_jira_issue", arguments: { issue_key: "SHOP-123" } },
    });
    const request = await jiraProxy.arrival(ISSUE);
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    await jiraProxy.until(() => request.abandonedAt !== undefined);
    expect(request.answeredAt).toBeUndefined();
    expect((await server.call("get_current_branch")).isError).toBe(false);
    expect(server.responsesTo(id)).toEqual([]);

    jiraProxy.reset();
    jiraProxy.add({ path: ISSUE, fault: { kind: "respond", status: 429, headers: { "retry-after": "5" } } });
    const waitingId = "cancel-jira-wait";
    const logged = server.stderr().length;
    server.send({
      jsonrpc: "2.0",
      id: waitingId,
      method: "tools/call",
      params: { name: "get_jira_issue", arguments: { issue_key: "SHOP-123" } },
    });
    // Cancelled once the server has logged (-vvv) that it is waiting out the Retry-After.
    await server.until(() => server.stderr().slice(logged).includes("in 5000 ms"));
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: waitingId } });
    expect((await server.call("get_current_branch")).isError).toBe(false);
    expect(server.responsesTo(waitingId)).toEqual([]);
    expect(jiraProxy.requestsTo(ISSUE)).toHaveLength(1);
  });
});

describe("afterwards", () => {
  test("the server is healthy, its stdout was pure JSON-RPC, and no token reached stderr", async () => {
    expect((await server.call("get_pull_request", { pr_number: 43 })).isError).toBe(false);
    expect((await server.call("get_jira_issue", { issue_key: "SHOP-123" })).isError).toBe(false);
    expect(server.stdoutProblems()).toEqual([]);
    expect(server.stderr()).not.toContain(GH_TOKEN);
    expect(server.stderr()).not.toContain(JIRA_TOKEN);
  });
});
