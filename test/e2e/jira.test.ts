import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHOP_123, SHOP_200 } from "../jira/fixtures/issues.ts";
import { RICH_ADF_TEXT } from "../jira/fixtures/rich-adf.ts";
import { RICH_WIKI_TEXT } from "../jira/fixtures/rich-wiki.ts";
import { type FakeIssue, FakeJira, type RecordedRequest, USERS } from "../support/fake-jira.ts";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer, type ToolCall } from "../support/mcp-harness.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

/**
 * Both Jira tools through the compiled binary and the MCP SDK's client, against fake Jira Cloud,
 * Data Center and Server sites on 127.0.0.1. One server process per credential setup, reused.
 */

const EMAIL = "alice@example.com";
const API_TOKEN = "atatt-e2e-cloud-token-7f3a9c21";
const PERSONAL_TOKEN = "pat-e2e-datacenter-token-51d2e8";
const NETRC_LOGIN = "svc-jira";
const NETRC_PASSWORD = "netrc-e2e-secret-9b7c44";
const WRONG_PASSWORD = "netrc-e2e-wrong-4e1f08";
/** In the userinfo of the Cloud server's `JIRA_HOST`: never used, never shown. */
const HOST_PASSWORD = "host-userinfo-secret-3d9a17";

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const CLOUD_AUTH = basic(EMAIL, API_TOKEN);
const BEARER_AUTH = `Bearer ${PERSONAL_TOKEN}`;
const NETRC_AUTH = basic(NETRC_LOGIN, NETRC_PASSWORD);

/** Every secret in every form it could leak in. */
const SECRETS = [
  API_TOKEN,
  PERSONAL_TOKEN,
  NETRC_PASSWORD,
  WRONG_PASSWORD,
  CLOUD_AUTH.slice("Basic ".length),
  NETRC_AUTH.slice("Basic ".length),
  basic(NETRC_LOGIN, WRONG_PASSWORD).slice("Basic ".length),
];

const ISSUE_FIELDS = [
  "summary",
  "description",
  "status",
  "assignee",
  "issuetype",
  "priority",
  "labels",
  "reporter",
  "updated",
];
const SERVER_INFO = "/rest/api/2/serverInfo";
const EXPLICIT_KEY_HINT = "Provide an explicit issue_key parameter.";
const JQL_MINE_IN_PROGRESS =
  'project = "SHOP" AND status = "In Progress" AND assignee = currentUser() ORDER BY updated DESC';

function fixtureIssues(): FakeIssue[] {
  return [
    { ...SHOP_123 },
    { ...SHOP_200 },
    // Four more of Alice's "In Progress" issues, one of Bob's and a finished one, oldest last.
    ...Array.from({ length: 6 }, (_, i) => ({
      key: `SHOP-${300 + i}`,
      summary: `Task ${i}`,
      wiki: `Task _${i}_`,
      adf: {
        type: "doc",
        version: 1,
        content: [{ type: "paragraph", content: [{ type: "text", text: `Task ${i}` }] }],
      },
      status: i < 5 ? "In Progress" : "Done",
      assignee: i === 4 ? USERS.bob : USERS.alice,
      updated: `2025-05-${String(20 - i).padStart(2, "0")}T10:00:00.000+0000`,
    })),
    { key: "OTHER-1", summary: "Elsewhere", status: "In Progress", assignee: USERS.alice, updated: "2025-06-09" },
  ];
}

/** SHOP-123 as both tools return it, given the site's URL and its rendered description. */
function shop123(site: string, description: string) {
  return {
    key: "SHOP-123",
    summary: "Checkout fails for guests",
    description,
    status: "In Progress",
    assignee: "Alice Example",
    url: `${site}/browse/SHOP-123`,
    issue_type: "Bug",
    priority: "High",
    labels: ["checkout", "payments"],
    reporter: "Bob Builder",
    updated: "2025-06-03T14:22:07.481+0000",
  };
}

/** A repository with twig's example branches and state file, checked out on `branch`. */
function exampleRepo(branch: string): GitRepo {
  const repo = makeRepo({ commit: true });
  for (const name of EXAMPLE_BRANCHES.slice(1)) repo.git("branch", name);
  repo.write(".twig/state.json", twigJson(EXAMPLE_STATE));
  repo.write(".twig/.gitignore", "*\n");
  repo.git("checkout", "-q", branch);
  return repo;
}

/** Replaces `~/.netrc` atomically (a new inode, so a cached parse can never be reused by accident). */
function writeNetrc(home: HermeticHome, content: string): void {
  const staged = join(home.home, ".netrc.staged");
  writeFileSync(staged, content, { mode: 0o600 });
  renameSync(staged, join(home.home, ".netrc"));
}

function removeNetrc(home: HermeticHome): void {
  rmSync(join(home.home, ".netrc"), { force: true });
}

type Data = Record<string, unknown>;
type ToolErrorBody = { code: string; message: string; hint?: string };

/** Every result text any server produced, checked for secrets at the end. */
const resultTexts: string[] = [];

/** A tool call whose envelope and `structuredContent` are checked for consistency. */
async function call(server: RunningServer, name: string, args: Data = {}): Promise<ToolCall> {
  const result = await server.call(name, args);
  resultTexts.push(result.text);
  if (result.isError) {
    expect(result.envelope.status).toBe("error");
    expect(result.structured).toBeUndefined();
  } else {
    expect(result.envelope.status).toBe("ok");
    expect(result.structured).toEqual(result.envelope.data);
  }
  return result;
}

async function succeed(server: RunningServer, name: string, args: Data = {}): Promise<Data> {
  const result = await call(server, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.text}`);
  return result.structured as Data;
}

async function fail(server: RunningServer, name: string, args: Data, code: string): Promise<ToolErrorBody> {
  const result = await call(server, name, args);
  expect(result.isError).toBe(true);
  expect(result.envelope.error?.code).toBe(code);
  return result.envelope.error as ToolErrorBody;
}

const keysOf = (data: Data) => (data.issues as Array<{ key: string }>).map((issue) => issue.key);
const route = (r: RecordedRequest) => `${r.method} ${r.path}`;
const jqlOf = (r: RecordedRequest | undefined) => (r?.body as Data | undefined)?.jql;

let cloud: FakeJira;
let datacenter: FakeJira;
let serverSite: FakeJira;
const fakes: FakeJira[] = [];
/** `serverInfo` probes seen per fake over the whole file (the per-test request logs are cleared). */
const probes = new Map<FakeJira, number>();

const homes: HermeticHome[] = [];
const repos: GitRepo[] = [];
let scratch: string;

let cloudServer: RunningServer;
let cloudRepo: GitRepo;
let dcServer: RunningServer;
let dcHome: HermeticHome;
let netrcServer: RunningServer;
let netrcHome: HermeticHome;
let noHostServer: RunningServer;
let disabledServer: RunningServer;
const servers = (): RunningServer[] => [cloudServer, dcServer, netrcServer, noHostServer, disabledServer];

beforeAll(async () => {
  cloud = FakeJira.start({ deployment: "cloud", expectedAuthorization: CLOUD_AUTH, me: USERS.alice, pageCap: 2 });
  datacenter = FakeJira.start({
    deployment: "datacenter",
    expectedAuthorization: BEARER_AUTH,
    me: USERS.alice,
    pageCap: 2,
  });
  serverSite = FakeJira.start({ deployment: "server", expectedAuthorization: NETRC_AUTH });
  for (const fake of [cloud, datacenter, serverSite]) {
    fake.addIssues(...fixtureIssues());
    fakes.push(fake);
    probes.set(fake, 0);
  }

  scratch = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-jira-e2e-")));
  cloudRepo = exampleRepo("feature/auth");
  const dcRepo = exampleRepo("feature/billing");
  repos.push(cloudRepo, dcRepo);

  const home = (env: Record<string, string>) => {
    const made = makeHermeticHome({ TWIG_MCP_HTTP_TIMEOUT_MS: "5000", ...env });
    homes.push(made);
    return made;
  };
  const cloudHome = home({
    JIRA_HOST: cloud.url.replace("http://", `http://jira-admin:${HOST_PASSWORD}@`),
    JIRA_EMAIL: EMAIL,
    JIRA_API_TOKEN: API_TOKEN,
  });
  dcHome = home({ JIRA_HOST: datacenter.url, JIRA_PERSONAL_TOKEN: PERSONAL_TOKEN });
  netrcHome = home({ JIRA_HOST: serverSite.url });
  const noHostHome = home({ JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN });
  const disabledHome = home({ JIRA_HOST: cloud.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN });

  [cloudServer, dcServer, netrcServer, noHostServer, disabledServer] = await Promise.all([
    startServer({ cwd: cloudRepo.root, env: cloudHome.env, args: ["-vvv"] }),
    startServer({ cwd: dcRepo.root, env: dcHome.env, args: ["-vvv"] }),
    startServer({ cwd: scratch, env: netrcHome.env, args: ["-vvv"] }),
    startServer({ cwd: scratch, env: noHostHome.env, args: ["-vvv"] }),
    startServer({ cwd: cloudRepo.root, env: disabledHome.env, args: ["--disable", "jira"] }),
  ]);
}, 60_000);

afterEach(() => {
  for (const fake of fakes) {
    probes.set(fake, (probes.get(fake) ?? 0) + fake.requests.filter((r) => r.path === SERVER_INFO).length);
    fake.requests.length = 0;
    fake.clearFaults();
  }
});

afterAll(async () => {
  await Promise.all(servers().map((server) => server?.close()));
  await Promise.all(fakes.map((fake) => fake.stop()));
  for (const repo of repos) repo.cleanup();
  for (const home of homes) home.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("tools/list", () => {
  test("publishes both Jira tools with output schemas and remote annotations", async () => {
    const { tools } = await cloudServer.client.listTools();
    const jira = tools.filter((tool) => tool.name === "get_jira_issue" || tool.name === "list_jira_issues");
    expect(jira.map((tool) => tool.name).sort()).toEqual(["get_jira_issue", "list_jira_issues"]);
    for (const tool of jira) {
      expect(tool.outputSchema?.type).toBe("object");
      // openWorldHint defaults to true in MCP, so it is left out.
      expect(tool.annotations).toEqual({ readOnlyHint: true });
    }
    const get = jira.find((tool) => tool.name === "get_jira_issue");
    expect(Object.keys(get?.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(["key", "summary", "status", "url", "labels"]),
    );
    expect(get?.inputSchema.required ?? []).toEqual([]);
    const list = jira.find((tool) => tool.name === "list_jira_issues");
    expect(Object.keys(list?.outputSchema?.properties ?? {})).toEqual(["issues", "has_more", "total"]);
    expect(list?.inputSchema.required).toEqual(["project"]);
  });

  test("--disable jira removes them and nothing else", async () => {
    const { tools } = await disabledServer.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).not.toContain("get_jira_issue");
    expect(names).not.toContain("list_jira_issues");
    expect(names).toContain("get_current_branch");
    expect(names).toContain("get_pull_request");
    await expect(
      disabledServer.client.callTool({ name: "get_jira_issue", arguments: { issue_key: "SHOP-123" } }),
    ).rejects.toThrow(/not found/i);
    expect(cloud.requests).toEqual([]);
  });
});

describe("Jira Cloud (serverInfo says Cloud; credentials from $JIRA_EMAIL and $JIRA_API_TOKEN)", () => {
  // JIRA_HOST carries `user:password@` here: requests, URLs and messages must use the host without it.
  test("get_jira_issue with an explicit key renders the ADF description", async () => {
    const data = await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" });
    expect(data).toEqual(shop123(cloud.url, RICH_ADF_TEXT));
    expect(Object.keys(data)).toEqual(Object.keys(shop123(cloud.url, RICH_ADF_TEXT)));

    const [request, ...others] = cloud.apiRequests();
    expect(others).toEqual([]);
    expect(route(request as RecordedRequest)).toBe("GET /rest/api/3/issue/SHOP-123");
    expect(request?.query).toEqual({ fields: ISSUE_FIELDS.join(",") });
    expect(request?.headers.authorization).toBe(CLOUD_AUTH);
    expect(request?.headers.accept).toBe("application/json");
    expect(request?.headers["user-agent"]).toStartWith("twig-mcp/");
    expect(cloud.requests.every((r) => r.headers.authorization === CLOUD_AUTH)).toBe(true);
  });

  test("keys are case-insensitive; an issue without description, assignee or reporter leaves them out", async () => {
    const lower = await succeed(cloudServer, "get_jira_issue", { issue_key: "shop-123" });
    expect(lower.key).toBe("SHOP-123");
    const bare = await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-200" });
    expect(bare).toEqual({
      key: "SHOP-200",
      summary: "Billing page",
      status: "To Do",
      url: `${cloud.url}/browse/SHOP-200`,
      issue_type: "Story",
      labels: [],
      updated: "2025-06-02T09:00:00.000+0000",
    });
    expect(cloud.apiRequests().map(route)).toEqual([
      "GET /rest/api/3/issue/SHOP-123",
      "GET /rest/api/3/issue/SHOP-200",
    ]);
  });

  test("get_jira_issue without a key follows the current branch's link in .twig/state.json", async () => {
    try {
      const auth = await succeed(cloudServer, "get_jira_issue");
      expect(auth).toEqual(shop123(cloud.url, RICH_ADF_TEXT));

      cloudRepo.git("checkout", "-q", "feature/billing");
      expect((await succeed(cloudServer, "get_jira_issue")).key).toBe("SHOP-200");
      expect(cloud.apiRequests().map(route)).toEqual([
        "GET /rest/api/3/issue/SHOP-123",
        "GET /rest/api/3/issue/SHOP-200",
      ]);

      cloudRepo.git("checkout", "-q", "hotfix/typo");
      const unlinked = await fail(cloudServer, "get_jira_issue", {}, "not_found");
      expect(unlinked).toEqual({
        code: "not_found",
        message: "Branch 'hotfix/typo' has no linked Jira issue",
        hint: EXPLICIT_KEY_HINT,
      });

      const head = cloudRepo.git("rev-parse", "HEAD");
      cloudRepo.git("checkout", "-q", "--detach");
      const detached = await fail(cloudServer, "get_jira_issue", {}, "invalid_params");
      expect(detached.message).toBe(
        `No issue_key provided and HEAD is detached (at ${head.slice(0, 12)}), so there is no current branch`,
      );
      expect(detached.hint).toBe(EXPLICIT_KEY_HINT);
      // An explicit key still works on a detached HEAD.
      expect((await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-200" })).key).toBe("SHOP-200");
      expect(cloud.apiRequests().map(route)).toEqual([
        "GET /rest/api/3/issue/SHOP-123",
        "GET /rest/api/3/issue/SHOP-200",
        "GET /rest/api/3/issue/SHOP-200",
      ]);
    } finally {
      cloudRepo.git("checkout", "-q", "feature/auth");
    }
  });

  test("invalid arguments are invalid_params and never reach Jira", async () => {
    for (const issue_key of ["SHOP 123", "123", "SHOP-", "../SHOP-1", "SHOP-1?fields=*all", "S-1"]) {
      const error = await fail(cloudServer, "get_jira_issue", { issue_key }, "invalid_params");
      expect(error.message).toContain("issue_key");
    }
    await fail(cloudServer, "get_jira_issue", { issue_key: 123 }, "invalid_params");
    for (const args of [
      {},
      { project: "SHOP; DROP" },
      { project: "S" },
      { project: "SHOP", limit: 0 },
      { project: "SHOP", limit: 101 },
      { project: "SHOP", limit: 2.5 },
    ]) {
      await fail(cloudServer, "list_jira_issues", args, "invalid_params");
    }
    expect(cloud.requests).toEqual([]);
  });

  test("list_jira_issues filters by status and assignee `me`, pages with nextPageToken and reports has_more", async () => {
    const data = await succeed(cloudServer, "list_jira_issues", {
      project: "SHOP",
      status: "In Progress",
      assignee: "me",
      limit: 3,
    });
    expect(keysOf(data)).toEqual(["SHOP-123", "SHOP-300", "SHOP-301"]);
    expect(data.has_more).toBe(true);
    expect("total" in data).toBe(false);
    expect((data.issues as Data[])[0]).toEqual(shop123(cloud.url, RICH_ADF_TEXT));

    const requests = cloud.apiRequests();
    expect(requests.map(route)).toEqual(["POST /rest/api/3/search/jql", "POST /rest/api/3/search/jql"]);
    for (const request of requests) {
      expect(request.headers.authorization).toBe(CLOUD_AUTH);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.query).toEqual({});
    }
    expect(requests[0]?.body).toEqual({ jql: JQL_MINE_IN_PROGRESS, maxResults: 3, fields: ISSUE_FIELDS });
    const second = requests[1]?.body as Data;
    expect(typeof second.nextPageToken).toBe("string");
    expect(second).toEqual({
      jql: JQL_MINE_IN_PROGRESS,
      nextPageToken: second.nextPageToken,
      maxResults: 1,
      fields: ISSUE_FIELDS,
    });
  });

  test("list_jira_issues collects every page when the limit covers them all", async () => {
    const data = await succeed(cloudServer, "list_jira_issues", {
      project: "shop",
      status: "In Progress",
      assignee: "ME",
      limit: 10,
    });
    expect(keysOf(data)).toEqual(["SHOP-123", "SHOP-300", "SHOP-301", "SHOP-302", "SHOP-303"]);
    expect(data.has_more).toBe(false);
    const bodies = cloud.apiRequests().map((r) => r.body as Data);
    expect(bodies.map((b) => b.maxResults)).toEqual([10, 8, 6]);
    expect(bodies.every((b) => b.jql === JQL_MINE_IN_PROGRESS)).toBe(true);

    const other = await succeed(cloudServer, "list_jira_issues", { project: "OTHER" });
    expect(keysOf(other)).toEqual(["OTHER-1"]);
    expect(other.has_more).toBe(false);
    expect(cloud.apiRequests()[3]?.body).toEqual({
      jql: 'project = "OTHER" ORDER BY updated DESC',
      maxResults: 20,
      fields: ISSUE_FIELDS,
    });
  });

  test("filter values are quoted JQL literals; Jira's 400s come back as invalid_params or not_found", async () => {
    const injected = await fail(
      cloudServer,
      "list_jira_issues",
      { project: "SHOP", status: 'Done" OR project = "OTHER', assignee: "Bob Builder" },
      "invalid_params",
    );
    expect(injected.message).toContain("The value 'Done\" OR project = \"OTHER' does not exist for the field 'status'");
    expect(jqlOf(cloud.apiRequests()[0])).toBe(
      'project = "SHOP" AND status = "Done\\" OR project = \\"OTHER" AND assignee = "Bob Builder" ORDER BY updated DESC',
    );

    const unknown = await fail(cloudServer, "list_jira_issues", { project: "NOPE" }, "not_found");
    expect(unknown.message).toStartWith("Project NOPE does not exist or is not visible to you");
  });

  test("HTTP errors: 404 → not_found, 401 → credentials_invalid, 410 → unsupported_api", async () => {
    const missing = await fail(cloudServer, "get_jira_issue", { issue_key: "SHOP-999" }, "not_found");
    expect(missing.message).toBe(
      "Issue SHOP-999 does not exist or is not visible to you: Issue does not exist or you do not have permission to see it.",
    );

    cloud.fail({
      path: "/rest/api/3/issue/SHOP-123",
      respond: { status: 401, headers: { "content-type": "text/html" }, body: "<html>Unauthorized</html>" },
    });
    const rejected = await fail(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" }, "credentials_invalid");
    expect(rejected.message).toBe(
      `Jira at ${cloud.url} rejected the credentials from $JIRA_EMAIL and $JIRA_API_TOKEN (HTTP 401 on GET /rest/api/3/issue/SHOP-123)`,
    );
    expect(rejected.hint).toContain("API token");

    cloud.fail({
      method: "POST",
      path: "/rest/api/3/search/jql",
      respond: {
        status: 410,
        body: { errorMessages: ["The requested API has been removed. Please migrate."], errors: {} },
      },
    });
    const gone = await fail(cloudServer, "list_jira_issues", { project: "SHOP" }, "unsupported_api");
    expect(gone.message).toBe(
      `Jira at ${cloud.url} no longer supports POST /rest/api/3/search/jql (HTTP 410 Gone): The requested API has been removed. Please migrate.`,
    );
  });

  test("429 with Retry-After is retried within the client's budget, then reported as rate_limited", async () => {
    const issuePath = "/rest/api/3/issue/SHOP-123";
    const tooMany = (retryAfter: string) => ({ status: 429, headers: { "Retry-After": retryAfter }, body: {} });

    cloud.fail({ path: issuePath, respond: tooMany("0") });
    expect((await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" })).key).toBe("SHOP-123");
    expect(cloud.apiRequests().map(route)).toEqual([`GET ${issuePath}`, `GET ${issuePath}`]);
    expect(cloudServer.stderr()).toContain(`Jira answered HTTP 429; retrying GET ${issuePath} in 0 ms`);

    // An HTTP date in the past means "now".
    cloud.requests.length = 0;
    cloud.fail({ path: issuePath, respond: tooMany("Wed, 21 Oct 2015 07:28:00 GMT") });
    expect((await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" })).key).toBe("SHOP-123");
    expect(cloud.apiRequests()).toHaveLength(2);

    // Three attempts in all, then the last 429 is the answer.
    cloud.requests.length = 0;
    cloud.fail({ path: issuePath, times: 3, respond: tooMany("0") });
    const exhausted = await fail(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" }, "rate_limited");
    expect(exhausted.message).toBe(
      `Jira at ${cloud.url} is rate limiting requests (HTTP 429 on GET ${issuePath}); it asks to retry after 0 s`,
    );
    expect(cloud.apiRequests()).toHaveLength(3);

    // A wait longer than the client will sleep is not waited for.
    cloud.requests.length = 0;
    cloud.fail({ method: "POST", path: "/rest/api/3/search/jql", respond: tooMany("120") });
    const patient = await fail(cloudServer, "list_jira_issues", { project: "SHOP" }, "rate_limited");
    expect(patient.message).toContain("it asks to retry after 120 s");
    expect(cloud.apiRequests()).toHaveLength(1);
  });

  test("stderr at -vvv shows the traffic but not the credentials", async () => {
    await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" });
    await succeed(cloudServer, "list_jira_issues", { project: "SHOP" });
    const stderr = cloudServer.stderr();
    expect(stderr).toContain("Jira GET /rest/api/3/issue/SHOP-123 → HTTP 200");
    expect(stderr).toContain("is cloud (deploymentType Cloud)");
    expect(stderr).toContain("DEBUG");
    for (const secret of SECRETS) expect(stderr).not.toContain(secret);
  });

  // The "using credentials from" info line names the site by its API root, never `base.baseUrl` (userinfo included).
  test("a password inside JIRA_HOST never reaches stderr", async () => {
    await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" });
    expect(cloudServer.stderr()).toContain("using credentials from $JIRA_EMAIL and $JIRA_API_TOKEN");
    expect(cloudServer.stderr()).not.toContain(HOST_PASSWORD);
  });
});

describe("Jira Data Center (serverInfo says DataCenter; credentials from $JIRA_PERSONAL_TOKEN, then ~/.netrc)", () => {
  test("get_jira_issue uses REST v2 with the personal access token and renders wiki markup", async () => {
    const data = await succeed(dcServer, "get_jira_issue", { issue_key: "SHOP-123" });
    expect(data).toEqual(shop123(datacenter.url, RICH_WIKI_TEXT));
    const [request, ...others] = datacenter.apiRequests();
    expect(others).toEqual([]);
    expect(route(request as RecordedRequest)).toBe("GET /rest/api/2/issue/SHOP-123");
    expect(request?.query).toEqual({ fields: ISSUE_FIELDS.join(",") });
    expect(datacenter.requests.every((r) => r.headers.authorization === BEARER_AUTH)).toBe(true);
  });

  test("get_jira_issue without a key follows the current branch's link", async () => {
    const data = await succeed(dcServer, "get_jira_issue");
    expect(data.key).toBe("SHOP-200");
    expect(data.description).toBeUndefined();
    expect(datacenter.apiRequests().map(route)).toEqual(["GET /rest/api/2/issue/SHOP-200"]);
  });

  test("list_jira_issues pages with startAt and reports total and has_more", async () => {
    const data = await succeed(dcServer, "list_jira_issues", {
      project: "SHOP",
      status: "In Progress",
      assignee: "me",
      limit: 3,
    });
    expect(keysOf(data)).toEqual(["SHOP-123", "SHOP-300", "SHOP-301"]);
    expect(data.has_more).toBe(true);
    expect(data.total).toBe(5);
    expect((data.issues as Data[])[0]).toEqual(shop123(datacenter.url, RICH_WIKI_TEXT));
    const requests = datacenter.apiRequests();
    expect(requests.map(route)).toEqual(["POST /rest/api/2/search", "POST /rest/api/2/search"]);
    expect(requests.map((r) => r.body)).toEqual([
      { jql: JQL_MINE_IN_PROGRESS, startAt: 0, maxResults: 3, fields: ISSUE_FIELDS },
      { jql: JQL_MINE_IN_PROGRESS, startAt: 2, maxResults: 1, fields: ISSUE_FIELDS },
    ]);
    expect(requests.every((r) => r.headers.authorization === BEARER_AUTH)).toBe(true);

    const unassigned = await succeed(dcServer, "list_jira_issues", { project: "SHOP", assignee: "unassigned" });
    expect(unassigned).toMatchObject({ has_more: false, total: 1 });
    expect(keysOf(unassigned)).toEqual(["SHOP-200"]);
    expect(jqlOf(datacenter.apiRequests()[2])).toBe('project = "SHOP" AND assignee IS EMPTY ORDER BY updated DESC');
  });

  test("a ~/.netrc entry for the host wins over the environment and is re-read when it changes", async () => {
    const machine = datacenter.url.slice("http://".length);
    try {
      writeNetrc(dcHome, `machine ${machine} login ${NETRC_LOGIN} password ${WRONG_PASSWORD}\n`);
      const rejected = await fail(dcServer, "get_jira_issue", { issue_key: "SHOP-123" }, "credentials_invalid");
      expect(rejected.message).toBe(
        `Jira at ${datacenter.url} rejected the credentials from ~/.netrc (machine "${machine}") ` +
          "(HTTP 401 on GET /rest/api/2/issue/SHOP-123) (login reason: AUTHENTICATED_FAILED): " +
          "You are not authenticated. Authentication required to perform this operation.",
      );
      expect(datacenter.apiRequests()[0]?.headers.authorization).toBe(basic(NETRC_LOGIN, WRONG_PASSWORD));

      datacenter.options.expectedAuthorization = NETRC_AUTH;
      writeNetrc(dcHome, `machine ${machine}\n  login ${NETRC_LOGIN}\n  password ${NETRC_PASSWORD}\n`);
      expect((await succeed(dcServer, "get_jira_issue", { issue_key: "SHOP-123" })).key).toBe("SHOP-123");
      expect(datacenter.apiRequests()[1]?.headers.authorization).toBe(NETRC_AUTH);
    } finally {
      removeNetrc(dcHome);
      datacenter.options.expectedAuthorization = BEARER_AUTH;
    }
    expect((await succeed(dcServer, "get_jira_issue", { issue_key: "SHOP-123" })).key).toBe("SHOP-123");
    expect(datacenter.apiRequests()[2]?.headers.authorization).toBe(BEARER_AUTH);
  });

  test("404 and 410 on Data Center", async () => {
    const missing = await fail(dcServer, "get_jira_issue", { issue_key: "SHOP-999" }, "not_found");
    expect(missing.message).toStartWith("Issue SHOP-999 does not exist or is not visible to you");
    datacenter.fail({ method: "POST", path: "/rest/api/2/search", respond: { status: 410 } });
    const gone = await fail(dcServer, "list_jira_issues", { project: "SHOP" }, "unsupported_api");
    expect(gone.message).toBe(`Jira at ${datacenter.url} no longer supports POST /rest/api/2/search (HTTP 410 Gone)`);
  });

  test("stderr at -vvv does not carry the credentials", async () => {
    await succeed(dcServer, "list_jira_issues", { project: "SHOP" });
    const stderr = dcServer.stderr();
    expect(stderr).toContain("Jira POST /rest/api/2/search → HTTP 200");
    expect(stderr).toContain("is server (deploymentType DataCenter)");
    for (const secret of SECRETS) expect(stderr).not.toContain(secret);
  });
});

describe("configuration errors", () => {
  test("no credentials anywhere → credentials_missing naming every place looked; nothing is sent", async () => {
    const machine = serverSite.url.slice("http://".length);
    const expected = {
      code: "credentials_missing",
      message:
        `Jira credentials not found. Looked in: ~/.netrc (machine "${machine}"), ~/.netrc (machine "atlassian.net"), ` +
        "$JIRA_EMAIL or $JIRA_USERNAME with $JIRA_API_TOKEN, $JIRA_PERSONAL_TOKEN.",
      hint:
        `Add \`machine ${machine} login <email> password <api-token>\` to ~/.netrc (\`twig creds\` can write it), ` +
        "or set JIRA_EMAIL and JIRA_API_TOKEN (Jira Cloud) or JIRA_PERSONAL_TOKEN (Data Center).",
    };
    expect(await fail(netrcServer, "get_jira_issue", { issue_key: "SHOP-123" }, "credentials_missing")).toEqual(
      expected,
    );
    // The client comes first: no key and no repository is still a credentials problem.
    expect(await fail(netrcServer, "get_jira_issue", {}, "credentials_missing")).toEqual(expected);
    expect(await fail(netrcServer, "list_jira_issues", { project: "SHOP" }, "credentials_missing")).toEqual(expected);
    expect(serverSite.requests).toEqual([]);
  });

  test("the atlassian.net entry of ~/.netrc is the fallback, even for a Server site", async () => {
    try {
      writeNetrc(netrcHome, `machine atlassian.net login ${NETRC_LOGIN} password ${NETRC_PASSWORD}\n`);
      const data = await succeed(netrcServer, "get_jira_issue", { issue_key: "SHOP-123" });
      expect(data).toEqual(shop123(serverSite.url, RICH_WIKI_TEXT));
      expect(serverSite.requests.map(route)).toEqual([`GET ${SERVER_INFO}`, "GET /rest/api/2/issue/SHOP-123"]);
      expect(serverSite.requests.every((r) => r.headers.authorization === NETRC_AUTH)).toBe(true);
      expect(netrcServer.stderr()).toContain("is server (deploymentType Server)");
    } finally {
      removeNetrc(netrcHome);
    }
    await fail(netrcServer, "get_jira_issue", { issue_key: "SHOP-123" }, "credentials_missing");
  });

  test("no $JIRA_HOST → credentials_missing saying so", async () => {
    for (const [name, args] of [
      ["get_jira_issue", { issue_key: "SHOP-123" }],
      ["get_jira_issue", {}],
      ["list_jira_issues", { project: "SHOP" }],
    ] as const) {
      const error = await fail(noHostServer, name, args, "credentials_missing");
      expect(error.message).toBe("Jira host environment variable 'JIRA_HOST' not set");
      expect(error.hint).toContain("Set JIRA_HOST");
      expect(error.hint).toContain("~/.netrc");
    }
  });
});

describe("secrets", () => {
  test("no token appears in any result or in any server's stderr", async () => {
    await succeed(cloudServer, "get_jira_issue", { issue_key: "SHOP-123" });
    await succeed(dcServer, "get_jira_issue", { issue_key: "SHOP-123" });
    await fail(netrcServer, "get_jira_issue", { issue_key: "SHOP-123" }, "credentials_missing");
    await fail(noHostServer, "list_jira_issues", { project: "SHOP" }, "credentials_missing");
    for (const secret of [...SECRETS, HOST_PASSWORD]) {
      for (const text of resultTexts) expect(text).not.toContain(secret);
    }
    for (const secret of SECRETS) {
      for (const server of servers()) expect(server.stderr()).not.toContain(secret);
    }
  });

  test("each site's deployment is probed once per server process", async () => {
    await succeed(cloudServer, "list_jira_issues", { project: "SHOP" });
    await succeed(dcServer, "list_jira_issues", { project: "SHOP" });
    const probed = (fake: FakeJira) =>
      (probes.get(fake) ?? 0) + fake.requests.filter((r) => r.path === SERVER_INFO).length;
    expect(probed(cloud)).toBe(1);
    expect(probed(datacenter)).toBe(1);
    // The Server site answered only while ~/.netrc held credentials (see "configuration errors").
    expect(probed(serverSite)).toBeLessThanOrEqual(1);
  });
});
