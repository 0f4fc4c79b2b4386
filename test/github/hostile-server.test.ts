/**
 * A git remote, a `Link` header or a response body chosen by someone else must not make the GitHub
 * client send the user's token away or read without end. Each server here is a real HTTP server on
 * 127.0.0.1 that records what reaches it.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pullRequestPayload } from "../support/fake-github.ts";
import { callTool, cleanupTemp, expectErr, expectOk, makeContext, makeRepo, okRepo, TOKEN } from "./helpers.ts";

interface Recorded {
  url: string;
  authorization: string | null;
}

const servers: Array<{ stop: () => void }> = [];

/** A server answering every request with `answer`, keeping each request's URL and credentials. */
function hostileServer(answer: (request: Request, origin: string) => Response) {
  const seen: Recorded[] = [];
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request): Response {
      seen.push({ url: request.url, authorization: request.headers.get("authorization") });
      return answer(request, `http://127.0.0.1:${server.port}`);
    },
  });
  servers.push({ stop: () => server.stop(true) });
  return { url: `http://127.0.0.1:${server.port}`, seen };
}

/** `fetch` that sends requests for `https://<host>/…` to `target` instead (the remote's host "is" the server). */
function routeHostTo(host: string, target: string): typeof fetch {
  const routed = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if (url.host !== host) return Promise.reject(new Error(`unexpected request to ${url.host}`));
    return fetch(`${target}${url.pathname}${url.search}`, init);
  };
  return routed as typeof fetch;
}

afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
});
afterAll(cleanupTemp);

describe("the .netrc default entry", () => {
  const pull = () => Response.json(pullRequestPayload({ owner: "o", repo: "r", number: 1 }));

  function setUp(env: Record<string, string> = {}) {
    const server = hostileServer(pull);
    const repo = makeRepo({ branch: "feature", remotes: [["origin", "https://evil.example/o/r.git"]] });
    const made = makeContext({ env, repo: okRepo(repo) });
    writeFileSync(join(made.home, ".netrc"), `default login me password ${TOKEN}\n`, { mode: 0o600 });
    const ctx = { ...made.ctx, fetch: routeHostTo("evil.example", server.url) };
    return { ctx, server };
  }

  test("is not sent to a host that only a git remote names", async () => {
    const { ctx, server } = setUp();
    const error = expectErr(await callTool("get_pull_request", { pr_number: 1 }, ctx));
    expect(error.code).toBe("credentials_missing");
    expect(error.message).toContain("default entry: not sent to evil.example");
    expect(server.seen).toEqual([]);
  });

  test("is sent to a host the user named with GH_HOST", async () => {
    const { ctx, server } = setUp({ GH_HOST: "evil.example" });
    expectOk(await callTool("get_pull_request", { pr_number: 1 }, ctx));
    expect(server.seen[0]?.authorization).toBe(`token ${TOKEN}`);
  });
});

describe("pagination", () => {
  test("a next-page link to another origin is not followed, and the list says there is more", async () => {
    const elsewhere = hostileServer(() => Response.json([]));
    const api = hostileServer(() =>
      Response.json([pullRequestPayload({ owner: "o", repo: "r", number: 1 })], {
        headers: { link: `<${elsewhere.url}/repos/o/r/pulls?page=2>; rel="next"` },
      }),
    );
    const { ctx, logs } = makeContext({ env: { GITHUB_API_URL: api.url, GH_TOKEN: TOKEN } });
    const data = expectOk(
      await callTool("list_pull_requests", { owner: "o", repo: "r", limit: 150, state: "all" }, ctx),
    );
    expect((data.pull_requests as unknown[]).length).toBe(1);
    expect(data.has_more).toBe(true);
    expect(elsewhere.seen).toEqual([]);
    expect(logs.some((line) => line.includes("next-page link to another origin"))).toBe(true);
  });

  test("a same-origin next-page link is followed", async () => {
    const api = hostileServer((request, origin) => {
      const page = new URL(request.url).searchParams.get("page");
      const number = page === "2" ? 2 : 1;
      const link = page === "2" ? {} : { link: `<${origin}/repos/o/r/pulls?page=2&per_page=1>; rel="next"` };
      return Response.json([pullRequestPayload({ owner: "o", repo: "r", number })], { headers: link });
    });
    const { ctx } = makeContext({ env: { GITHUB_API_URL: api.url, GH_TOKEN: TOKEN } });
    const data = expectOk(
      await callTool("list_pull_requests", { owner: "o", repo: "r", limit: 150, state: "all" }, ctx),
    );
    expect((data.pull_requests as Array<{ number: number }>).map((pr) => pr.number)).toEqual([1, 2]);
    expect(api.seen.length).toBe(2);
  });
});

describe("response size", () => {
  test("an endless 200 body stops at the 16 MiB cap and the error says so", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const api = hostileServer(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              sent += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    );
    const { ctx } = makeContext({
      env: { GITHUB_API_URL: api.url, GH_TOKEN: TOKEN, TWIG_MCP_HTTP_TIMEOUT_MS: "60000" },
    });
    const error = expectErr(await callTool("get_pull_request", { owner: "o", repo: "r", pr_number: 1 }, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("more than 16 MiB");
    // Refused, not retried: one request.
    expect(api.seen.length).toBe(1);
    // The server may have buffered ahead, but reading stopped near the cap.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("a redirect", () => {
  test("to another origin is not followed with the token", async () => {
    const elsewhere = hostileServer(() => Response.json({}));
    const api = hostileServer(
      () => new Response(null, { status: 302, headers: { location: `${elsewhere.url}/repos/o/r/pulls/1` } }),
    );
    const { ctx } = makeContext({ env: { GITHUB_API_URL: api.url, GH_TOKEN: TOKEN } });
    const error = expectErr(await callTool("get_pull_request", { owner: "o", repo: "r", pr_number: 1 }, ctx));
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("not followed");
    expect(elsewhere.seen).toEqual([]);
  });
});

describe("a failed name lookup", () => {
  test("is reported as DNS, naming the host, and not retried", async () => {
    let attempts = 0;
    const failing = (() => {
      attempts++;
      return Promise.reject(
        Object.assign(new TypeError("getaddrinfo ENOTFOUND ghe.example.invalid"), {
          code: "ENOTFOUND",
          hostname: "ghe.example.invalid",
        }),
      );
    }) as unknown as typeof fetch;
    const made = makeContext({ env: { GITHUB_API_URL: "https://ghe.example.invalid/api/v3", GH_TOKEN: TOKEN } });
    const ctx = { ...made.ctx, fetch: failing };
    const error = expectErr(await callTool("get_pull_request", { owner: "o", repo: "r", pr_number: 1 }, ctx));
    expect(error.message).toContain("ghe.example.invalid did not resolve (ENOTFOUND)");
    expect(error.message).not.toContain("500");
    expect(attempts).toBe(1);
    expect(made.logs.some((line) => line.includes("DNS lookup failed (ENOTFOUND)"))).toBe(true);
    expect(made.logs.some((line) => line.includes("with id UNKNOWN"))).toBe(false);
  });
});

describe("a remote URL in a message", () => {
  test("shows no password, even one holding # or ?, nor scp-form user:pass", async () => {
    const repo = makeRepo({
      remotes: [
        ["origin", "https://me:ghp_pa#ss?word@gitlab.com/o/r.git"],
        ["backup", "me:ghp_scpSECRET@bitbucket.org:o/r.git"],
      ],
    });
    const { ctx } = makeContext({ env: { GH_TOKEN: TOKEN }, repo: okRepo(repo) });
    const error = expectErr(await callTool("get_pull_request", { pr_number: 1 }, ctx));
    expect(error.message).toContain("bitbucket.org:o/r.git");
    expect(error.message).not.toContain("ghp_pa");
    expect(error.message).not.toContain("word@");
    expect(error.message).not.toContain("ghp_scpSECRET");
  });
});
