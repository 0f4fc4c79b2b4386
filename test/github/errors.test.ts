import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDroppingServer } from "../support/fake-github.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { callInfo, callTool, cleanupTemp, expectErr, expectOk, makeContext, TOKEN } from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
afterAll(cleanupTemp);

const ARGS = { pr_number: 5, owner: "octo", repo: "r" };
const PATH = "/repos/octo/r/pulls/5";

function context(extra: Record<string, string> = {}) {
  fake.addPull({ owner: "octo", repo: "r", number: 5 });
  return makeContext({ env: { ...fake.env(), ...extra } });
}

function resetIn(seconds: number): string {
  return String(Math.floor(Date.now() / 1000) + seconds);
}

describe("HTTP errors map to tool errors", () => {
  test("401 is credentials_invalid and names where the token came from", async () => {
    const { ctx, logs } = context({ GH_TOKEN: "ghp_wrongTokenValue123" });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error).toEqual({
      code: "credentials_invalid",
      message: "GitHub rejected the credentials (HTTP 401: Bad credentials)",
      hint: expect.stringContaining("$GH_TOKEN"),
    });
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(error)).not.toContain("ghp_wrongTokenValue123");
    expect(logs.join("")).not.toContain("ghp_wrongTokenValue123");
  });

  test("403 with an exhausted primary limit far away is rate_limited at once, with the reset time", async () => {
    const reset = resetIn(1800);
    fake.inject("GET", PATH, {
      status: 403,
      body: { message: "API rate limit exceeded for user ID 1.", documentation_url: "https://docs.github.com" },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset, "x-ratelimit-limit": "5000" },
    });
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("rate_limited");
    const at = new Date(Number(reset) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    expect(error.message).toBe(
      `GitHub API rate limit exceeded (5000 requests per hour); it resets at ${at} (in 30 min)`,
    );
    expect(error.hint).toBeDefined();
    expect(fake.requests).toHaveLength(1);
  });

  test("a primary limit that resets within seconds is waited out once, then the call succeeds", async () => {
    fake.inject("GET", PATH, {
      status: 403,
      body: { message: "API rate limit exceeded" },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": resetIn(1) },
    });
    const { ctx, logs } = context();
    const data = expectOk(await callTool("get_pull_request", ARGS, ctx));
    expect(data.number).toBe(5);
    expect(fake.requests.map((r) => r.status)).toEqual([403, 200]);
    expect(logs.join("")).toContain("retrying once");
  });

  test("a limit that persists after the one retry is rate_limited", async () => {
    fake.inject(
      "GET",
      PATH,
      {
        status: 403,
        body: { message: "API rate limit exceeded" },
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": resetIn(1) },
      },
      5,
    );
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("rate_limited");
    expect(fake.requests).toHaveLength(2);
  });

  test("secondary rate limit with Retry-After", async () => {
    fake.inject("GET", PATH, {
      status: 403,
      body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
      headers: { "retry-after": "60" },
    });
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("rate_limited");
    expect(error.message).toMatch(/^GitHub secondary rate limit exceeded; retry after 60 s \(at \d{4}-/);
    expect(fake.requests).toHaveLength(1);
  });

  test("429 is rate_limited and not retried blindly", async () => {
    fake.inject("GET", PATH, {
      status: 429,
      body: { message: "Too Many Requests" },
      headers: { "retry-after": "120" },
    });
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("rate_limited");
    expect(error.message).toContain("retry after 120 s");
    expect(fake.requests).toHaveLength(1);
  });

  test("403 without rate-limit signs is a permission problem", async () => {
    fake.inject("GET", PATH, {
      status: 403,
      body: { message: "Resource protected by organization SAML enforcement." },
    });
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("credentials_invalid");
    expect(error.message).toBe(
      "GitHub refused access to pull request #5 in octo/r (HTTP 403: Resource protected by organization SAML enforcement.)",
    );
    expect(error.hint).toContain("SAML SSO");
  });

  test("404 is not_found with an access hint", async () => {
    const { ctx } = context();
    const result = await callTool("get_pull_request", { ...ARGS, pr_number: 404 }, ctx);
    const error = expectErr(result);
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("Pull request #404 in octo/r not found (HTTP 404)");
    expect(error.hint).toContain("token from $GH_TOKEN");
    // The kind is a field of the value: a copy (as a reply part or a scrubbed error is) keeps it.
    expect(!result.ok && { ...result.error }.kind).toBe("refused");
  });

  test("an error's kind: a 5xx has none; a cancelled call is code cancelled, no network_error", async () => {
    fake.inject("GET", PATH, { status: 500, body: { message: "boom" } }, 10);
    const failed = await callTool("get_pull_request", ARGS, context({ TWIG_MCP_GITHUB_RETRIES: "0" }).ctx);
    expect(expectErr(failed).code).toBe("network_error");
    expect(!failed.ok && failed.error.kind).toBeUndefined();

    const controller = new AbortController();
    controller.abort();
    const cancelled = await callTool("get_pull_request", ARGS, context().ctx, callInfo(controller.signal));
    expect(!cancelled.ok && cancelled.error.code).toBe("cancelled");
  });

  test("422 is invalid_params with GitHub's message", async () => {
    fake.inject("GET", "/repos/octo/r/pulls", { status: 422, body: { message: "Validation Failed" } });
    const { ctx } = context();
    const error = expectErr(await callTool("list_pull_requests", { owner: "octo", repo: "r" }, ctx));
    expect(error.code).toBe("invalid_params");
    expect(error.message).toContain("HTTP 422: Validation Failed");
  });

  test("a burst of 5xx is retried with back-off and the call succeeds", async () => {
    fake.inject(
      "GET",
      PATH,
      { status: 502, body: "<html>Bad gateway</html>", headers: { "content-type": "text/html" } },
      2,
    );
    const { ctx } = context();
    const data = expectOk(await callTool("get_pull_request", ARGS, ctx));
    expect(data.number).toBe(5);
    expect(fake.requests.map((r) => r.status)).toEqual([502, 502, 200]);
  });

  test("persistent 5xx gives up after the bounded retries", async () => {
    fake.inject("GET", PATH, { status: 500, body: { message: "Server Error" } }, 10);
    const { ctx } = context({ TWIG_MCP_GITHUB_RETRIES: "2" });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toBe("GitHub API error for pull request #5 in octo/r: HTTP 500 (Server Error)");
    expect(error.hint).toContain("githubstatus");
    expect(fake.requests).toHaveLength(3);
  });

  test("a slow response times out as network_error and is not retried", async () => {
    // Held until the test ends: only the client's own timeout can answer this call.
    fake.inject("GET", PATH, { status: 200, body: {}, held: true });
    const { ctx } = context({ TWIG_MCP_HTTP_TIMEOUT_MS: "100" });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toBe("GitHub did not answer the request for pull request #5 in octo/r within 100 ms");
    expect(error.hint).toContain("TWIG_MCP_HTTP_TIMEOUT_MS");
    expect(fake.requests).toHaveLength(1);
  });

  test("cancelling the MCP request aborts the HTTP request", async () => {
    fake.inject("GET", PATH, { status: 200, body: {}, held: true });
    const { ctx } = context();
    const controller = new AbortController();
    const answer = callTool("get_pull_request", ARGS, ctx, callInfo(controller.signal));
    // Cancelled while the fake holds its answer: the call can only end through the cancellation.
    await fake.awaitRequest(PATH);
    controller.abort();
    const error = expectErr(await answer);
    expect(error.code).toBe("cancelled");
    expect(error.message).toContain("cancelled");
  });

  test("an already-cancelled request sends nothing", async () => {
    const { ctx } = context();
    const controller = new AbortController();
    controller.abort();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx, callInfo(controller.signal)));
    expect(error.code).toBe("cancelled");
    expect(fake.requests).toHaveLength(0);
  });

  test("a dropped connection is retried, then reported as network_error", async () => {
    const dropper = await startDroppingServer();
    try {
      const { ctx } = makeContext({ env: { GITHUB_API_URL: dropper.url, GH_TOKEN: TOKEN } });
      const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
      expect(error.code).toBe("network_error");
      expect(error.message).toStartWith(`Could not reach GitHub at ${dropper.url} while requesting pull request #5`);
      expect(error.hint).toContain("GITHUB_API_URL");
      expect(dropper.connections()).toBeGreaterThanOrEqual(3);
    } finally {
      dropper.stop();
    }
  });

  test("connection refused is network_error", async () => {
    const dropper = await startDroppingServer();
    const url = dropper.url;
    dropper.stop();
    const { ctx } = makeContext({ env: { GITHUB_API_URL: url, GH_TOKEN: TOKEN, TWIG_MCP_GITHUB_RETRIES: "0" } });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toContain(`Could not reach GitHub at ${url}`);
  });

  test("a payload that is not a pull request is reported, not thrown", async () => {
    fake.inject("GET", PATH, { status: 200, body: { number: "five" } });
    const { ctx } = context();
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toStartWith("Unexpected response from GitHub for pull request #5 in octo/r: ");
  });

  test("a bad GITHUB_API_URL is reported", async () => {
    const { ctx } = context({ GITHUB_API_URL: "ftp://example.com" });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("GITHUB_API_URL");
  });
});

describe("credentials", () => {
  test("missing credentials name every place looked, and a fix is picked up on the next call", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 5 });
    const { ctx, home } = makeContext({ env: { GITHUB_API_URL: fake.url } });
    const error = expectErr(await callTool("get_pull_request", ARGS, ctx));
    expect(error.code).toBe("credentials_missing");
    expect(error.message).toContain(`${join(home, ".netrc")} (machine github.com)`);
    expect(error.message).toContain("$GH_TOKEN");
    expect(error.message).toContain("$GITHUB_TOKEN");
    expect(error.message).toContain(`${join(home, ".config", "gh", "hosts.yml")} (github.com oauth_token)`);
    expect(error.hint).toContain("gh auth token");
    expect(fake.requests).toHaveLength(0);

    writeFileSync(join(home, ".netrc"), `machine github.com\n  login me\n  password ${TOKEN}\n`);
    const data = expectOk(await callTool("get_pull_request", ARGS, ctx));
    expect(data.number).toBe(5);
    expect(fake.requests[0]?.headers.authorization).toBe(`token ${TOKEN}`);
  });

  test("no token appears in results, errors or logs, whatever happens", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 5 });
    const secret = TOKEN;
    const outputs: string[] = [];
    const stderr: string[] = [];
    const originalWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const scenarios: Array<() => void> = [
        () => {},
        () => fake.inject("GET", PATH, { status: 401, body: { message: `Bad credentials for token ${secret}` } }),
        () => fake.inject("GET", PATH, { status: 500, body: { message: `oops ${secret}` } }, 5),
        () => fake.inject("GET", PATH, { status: 403, body: { message: `denied ${secret}` } }),
        () => fake.inject("GET", PATH, { status: 200, body: { number: secret } }),
      ];
      for (const scenario of scenarios) {
        const { ctx, logs } = context({ TWIG_MCP_GITHUB_RETRIES: "1" });
        scenario();
        for (const name of ["get_pull_request", "get_pr_status", "list_pull_requests"]) {
          outputs.push(JSON.stringify(await callTool(name, ARGS, ctx)));
        }
        outputs.push(...logs);
        fake.reset();
      }
    } finally {
      process.stderr.write = originalWrite;
    }
    expect(outputs.join("\n")).not.toContain(secret);
    expect(stderr.join("")).not.toContain(secret);
  });
});
