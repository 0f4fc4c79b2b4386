/**
 * Secrets, through the compiled binary at -vvv with MCP logging at debug: tokens in every place
 * the server looks (environment, `.netrc`, gh's hosts.yml, a remote URL, JIRA_HOST), servers that
 * echo the credentials back in errors, and the whole tool/prompt/resource surface — no result,
 * error, stderr line or `notifications/message` carries a secret or its Basic encoding. `doctor`
 * masks them too.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runBinary } from "../support/binary.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { FaultProxy, HTML_ERROR_PAGE, type ProxiedRequest } from "../support/fault-proxy.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { RawServer } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const SECRETS = {
  GH_TOKEN: "ghp_SecretFromGhTokenVariable000000001",
  GITHUB_TOKEN: "ghp_SecretFromGithubTokenVariable00002",
  GH_ENTERPRISE_TOKEN: "ghe_SecretFromEnterpriseVariable000003",
  JIRA_API_TOKEN: "ATATTsecretJiraApiToken00000000000004",
  JIRA_PERSONAL_TOKEN: "NjQ5secretJiraPersonalToken0000000005",
  netrcGitHub: "ghp_SecretFromNetrcForGitHub00000000006",
  netrcJira: "ATATTsecretFromNetrcForJira0000000007",
  ghHosts: "gho_SecretFromGhHostsYml000000000000008",
  remoteUrl: "ghp_SecretInsideARemoteUrl0000000000009",
  jiraHostPassword: "SecretPasswordInJiraHost00000000000010",
};
const EMAIL = "alice@example.com";

/** Every form a secret could leak in: itself, and the Basic header value built from it. */
function leakForms(): string[] {
  const forms: string[] = [];
  for (const secret of Object.values(SECRETS)) {
    forms.push(secret, Buffer.from(`${EMAIL}:${secret}`).toString("base64"));
    forms.push(Buffer.from(`me:${secret}`).toString("base64"));
  }
  return forms;
}

function expectNoSecret(where: string, text: string): void {
  for (const form of leakForms()) {
    if (text.includes(form))
      throw new Error(
        `${where} contains a secret (${form.slice(0, 8)}…): ${text
          .split("\n")
          .find((l) => l.includes(form))
          ?.slice(0, 2000)}`,
      );
  }
}

let world: World;
const github = useFakeGitHub({ resetAfterEach: false });
let jira: FakeJira;
let ghProxy: FaultProxy;
let jiraProxy: FaultProxy;

beforeAll(async () => {
  github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui" });
  github.addPull({ owner: "octo", repo: "shop", number: 42, head: "feature/auth" });
  jira = FakeJira.start({ deployment: "server" });
  jira.addIssues({ key: "SHOP-123", summary: "Checkout", status: "In Progress", assignee: USERS.alice });
  ghProxy = await FaultProxy.start(github.url);
  jiraProxy = await FaultProxy.start(jira.url);
  const jiraHost = jiraProxy.url.replace("http://", `http://me:${SECRETS.jiraHostPassword}@`);
  world = makeWorld({
    GITHUB_API_URL: ghProxy.url,
    GH_TOKEN: SECRETS.GH_TOKEN,
    GITHUB_TOKEN: SECRETS.GITHUB_TOKEN,
    GH_ENTERPRISE_TOKEN: SECRETS.GH_ENTERPRISE_TOKEN,
    JIRA_HOST: jiraHost,
    JIRA_EMAIL: EMAIL,
    JIRA_API_TOKEN: SECRETS.JIRA_API_TOKEN,
    JIRA_PERSONAL_TOKEN: SECRETS.JIRA_PERSONAL_TOKEN,
    TWIG_MCP_HTTP_TIMEOUT_MS: "1000",
    TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1",
  });
  writeFileSync(
    join(world.home, ".netrc"),
    `machine github.com login me password ${SECRETS.netrcGitHub}\nmachine atlassian.net login ${EMAIL} password ${SECRETS.netrcJira}\n`,
    { mode: 0o600 },
  );
  mkdirSync(join(world.home, ".config", "gh"), { recursive: true });
  writeFileSync(
    join(world.home, ".config", "gh", "hosts.yml"),
    `github.com:\n    oauth_token: ${SECRETS.ghHosts}\n    user: me\n`,
  );
  world.repo.git("remote", "add", "leaky", `https://x-access-token:${SECRETS.remoteUrl}@github.com/octo/shop.git`);
});

afterAll(async () => {
  await ghProxy?.stop();
  await jiraProxy?.stop();
  await jira?.stop();
  world?.cleanup();
});

/** What a request carried: its Authorization header, and the secret inside it (Basic decoded). */
function credentialsOf(request: ProxiedRequest): string {
  const header = request.headers.authorization ?? "";
  const [scheme = "", value = ""] = header.split(" ");
  const inner = scheme.toLowerCase() === "basic" ? Buffer.from(value, "base64").toString("utf8") : value;
  return `${header} | ${value} | ${inner} | ${inner.split(":").pop()}`;
}

/** Error bodies that quote the request's credentials back, as a misconfigured proxy or server might. */
function echoingFaults(): void {
  const echo = (wrap: (echoed: string) => string) => (request: ProxiedRequest) => wrap(credentialsOf(request));
  const pr = /\/pulls\/42$/;
  ghProxy.add({
    path: pr,
    fault: { kind: "respond", status: 401, body: echo((e) => JSON.stringify({ message: `Bad credentials: ${e}` })) },
  });
  ghProxy.add({
    path: pr,
    fault: { kind: "respond", status: 403, body: echo((e) => JSON.stringify({ message: `Forbidden for ${e}` })) },
  });
  ghProxy.add({
    path: pr,
    times: 3,
    fault: { kind: "respond", status: 502, body: echo((e) => `${HTML_ERROR_PAGE}<!-- ${e} -->`) },
  });
  ghProxy.add({ path: pr, fault: { kind: "respond", status: 422, body: echo((e) => `Validation failed: ${e}`) } });
  for (const status of [400, 401, 403, 404, 429, 500]) {
    jiraProxy.add({
      path: "/rest/api/2/issue/SHOP-9",
      fault: {
        kind: "respond",
        status,
        headers: { "content-type": "application/json", "retry-after": "600" },
        body: echo((e) => JSON.stringify({ errorMessages: [`Denied ${e}`], errors: { token: e }, message: e })),
      },
    });
  }
}

test("no result, error, log line or log notification carries a secret, at -vvv with MCP logging at debug", async () => {
  echoingFaults();
  const server = await RawServer.start({ cwd: world.root, env: world.env, args: ["-vvv"] });
  try {
    await server.initialize();
    await server.request("logging/setLevel", { level: "debug" });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["get_current_branch", {}],
      ["list_branches", {}],
      ["get_branch_tree", {}],
      ["get_branch_stack", {}],
      ["get_branch_metadata", { branch: "feature/auth" }],
      ["get_worktrees", {}],
      ["list_repositories", {}],
      ["get_pull_request", {}],
      ["get_pr_status", { pr_number: 43 }],
      ["list_pull_requests", { state: "all" }],
      ["get_jira_issue", { issue_key: "SHOP-123" }],
      ["list_jira_issues", { project: "SHOP", assignee: "me" }],
    ];
    for (const [name, args] of calls) await server.call(name, args);
    for (let i = 0; i < 4; i++) {
      const result = await server.call("get_pull_request", { pr_number: 42 });
      expect(result.isError).toBe(true);
    }
    for (let i = 0; i < 6; i++) {
      const result = await server.call("get_jira_issue", { issue_key: "SHOP-9" });
      expect(result.isError).toBe(true);
    }
    // After the faults on #42 are spent: for feature/auth-ui it asks for its parent's PR (#42) too.
    await server.call("get_branch_context", {});
    await server.call("get_branch_context", { branch: "feature/auth-ui" });
    await server.call("get_pull_request", { owner: "octo", repo: "missing", pr_number: 1 });
    await server.request("prompts/get", { name: "stack-status", arguments: {} });
    await server.request("prompts/get", { name: "branch-context", arguments: {} });
    await server.request("resources/read", { uri: "twig://branch/feature%2Fauth/context" });
    await server.request("resources/read", { uri: "twig://repo/tree" });
    expect(ghProxy.requests.length).toBeGreaterThan(10);
    expect(jiraProxy.requests.length).toBeGreaterThan(6);
    // The requests did carry credentials: what is proven absent above was really in play.
    expect(ghProxy.requests.some((r) => r.headers.authorization !== undefined)).toBe(true);
    expect(jiraProxy.requests.some((r) => r.headers.authorization !== undefined)).toBe(true);
  } finally {
    await server.close();
  }
  expect(server.notifications.some((n) => n.method === "notifications/message")).toBe(true);
  expect(server.stderr()).toContain("DEBUG");
  expectNoSecret("stdout (results, errors, notifications)", server.lines.join("\n"));
  expectNoSecret("stderr", server.stderr());
  expect(server.stdoutProblems()).toEqual([]);
}, 30_000);

describe("doctor", () => {
  test.each([[["doctor"]], [["doctor", "--json"]], [["doctor", "--online", "-vvv"]]])(
    "%p masks every credential",
    async (args) => {
      const { stdout, stderr, code } = await runBinary(args, { cwd: world.root, env: world.env });
      expect(code === 2 ? stderr : "").not.toContain("unexpected argument");
      expect(stdout.length).toBeGreaterThan(0);
      expectNoSecret(`doctor ${args.join(" ")} stdout`, stdout);
      expectNoSecret(`doctor ${args.join(" ")} stderr`, stderr);
    },
    30_000,
  );
});
