/**
 * Issue 47's attacks on the compiled binary, one each: paging that would not end, pages that would fill
 * memory, a repository too big for one reply, a request too odd to answer, a call withdrawn mid-way. Each
 * asserts its bound, and that `ping` answers within 1 s while the work goes on (the issue's bar).
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { unlinkedState } from "../support/fixtures.ts";
import { RawServer } from "./support/raw-server.ts";
import { makeWorld } from "./support/world.ts";

// Each test starts a compiled server; the machine running the suite may be busy.
setDefaultTimeout(120_000);

const TOKEN = "ghp_boundedWORKtoken00000000000000000000";
const PING_BAR_MS = 1000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(
  env: Record<string, string> = {},
  setUp: (world: ReturnType<typeof makeWorld>) => void = () => {},
) {
  const world = makeWorld(env);
  cleanups.push(world.cleanup);
  setUp(world);
  const server = await RawServer.start({ cwd: world.root, env: world.env });
  cleanups.push(() => server.close());
  await server.initialize();
  return server;
}

/** How long `ping` takes to come back, asked now. */
async function pingMs(server: RawServer): Promise<number> {
  const started = performance.now();
  const response = await server.request("ping", {});
  expect(response.result).toEqual({});
  return performance.now() - started;
}

/** A review-thread page: `nodes` threads, and the cursor of the next page (`null`: the last). */
function threadPage(nodes: unknown[], next: string | null, body = "Looks off") {
  return {
    data: {
      repository: {
        pullRequest: {
          title: "T",
          url: "https://github.com/o/r/pull/1",
          state: "OPEN",
          headRefOid: "a".repeat(40),
          reviewThreads: {
            totalCount: 5000,
            pageInfo: { hasNextPage: next !== null, endCursor: next },
            nodes: nodes.map((_, i) => ({
              id: `T${next}-${i}`,
              isResolved: false,
              isOutdated: false,
              resolvedBy: null,
              path: "src/a.ts",
              line: i + 1,
              startLine: null,
              originalLine: i + 1,
              originalStartLine: null,
              diffSide: "RIGHT",
              comments: {
                totalCount: 1,
                nodes: [
                  {
                    author: { login: "bob" },
                    body,
                    createdAt: "2025-06-01T10:00:00Z",
                    diffHunk: "@@ -1 +1 @@\n+x",
                    url: "https://github.com/o/r/pull/1#r1",
                  },
                ],
              },
            })),
          },
        },
      },
    },
  };
}

/** A GraphQL endpoint on 127.0.0.1 answering every query with `page(n)` (n counts from 1). */
function graphql(page: (n: number) => string | Promise<string>) {
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      requests++;
      return new Response(await page(requests), { headers: { "content-type": "application/json" } });
    },
  });
  cleanups.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, requests: () => requests };
}

describe("review-thread paging ends (47.1)", () => {
  test("empty pages under one fixed cursor: one more request, then the reply says what was not read", async () => {
    const api = graphql((n) => JSON.stringify(threadPage(n === 1 ? [{}] : [], "same-cursor")));
    const server = await serve({ GITHUB_API_URL: api.url, GH_TOKEN: TOKEN });
    const result = await server.call("get_review_threads", { owner: "o", repo: "r", pr_number: 1 });
    expect(result.isError).toBe(false);
    expect(api.requests()).toBe(2);
    expect((result.structured as { hint: string }).hint).toContain(
      "Only 1 of 5,000 threads were read: GitHub sent an empty page that claimed more",
    );
    expect(await pingMs(server)).toBeLessThan(PING_BAR_MS);
  });

  test("one thread a page with a new cursor each time: at most ceil(1,000 / 100) = 10 requests", async () => {
    const api = graphql((n) => JSON.stringify(threadPage([{}], `cursor-${n}`)));
    const server = await serve({ GITHUB_API_URL: api.url, GH_TOKEN: TOKEN });
    const result = await server.call("get_review_threads", { owner: "o", repo: "r", pr_number: 1 });
    expect(result.isError).toBe(false);
    expect(api.requests()).toBe(10);
    expect((result.structured as { hint: string }).hint).toContain("one read takes at most 10 pages");
  });

  test("15.5 MB pages: the 32 MiB budget across pages ends the read, memory stays bounded, ping answers", async () => {
    const body = "x".repeat(15.5 * 1000 * 1000);
    const pings: Array<Promise<number>> = [];
    let server: RawServer | undefined;
    const api = graphql((n) => {
      // Each page arrives while the server still parses the one before: ping then.
      if (server !== undefined) pings.push(pingMs(server));
      return JSON.stringify(threadPage([{}], `cursor-${n}`, body));
    });
    server = await serve({ GITHUB_API_URL: api.url, GH_TOKEN: TOKEN, TWIG_MCP_HTTP_TIMEOUT_MS: "60000" });
    const before = server.rssKiB();
    const result = await server.call(
      "get_review_threads",
      { owner: "o", repo: "r", pr_number: 1 },
      { timeoutMs: 100_000 },
    );
    expect(result.isError).toBe(false);
    // Two whole pages (31 MB), and the third cut where the budget ends.
    expect(api.requests()).toBe(3);
    const data = result.structured as { threads: unknown[]; hint: string };
    expect(data.threads).toHaveLength(2);
    expect(data.hint).toContain("its pages passed the 32 MiB one read takes in");
    expect(server.rssKiB() - before).toBeLessThan(256 * 1024);
    for (const latency of await Promise.all(pings)) expect(latency).toBeLessThan(PING_BAR_MS);
  });
});

describe("replies cut, never refused (47.2)", () => {
  /** `names` in twig's state (parent by `parentOf`) and in git, all at the one commit. */
  function repository(names: string[], parentOf: (i: number) => string | undefined) {
    return (world: ReturnType<typeof makeWorld>) => {
      world.repo.write(".twig/state.json", JSON.stringify(unlinkedState(names, parentOf)));
      const head = world.repo.git("rev-parse", "HEAD").trim();
      const refs = [...names].sort().map((name) => `${head} refs/heads/${name}\n`);
      world.repo.write(".git/packed-refs", `# pack-refs with: peeled fully-peeled sorted \n${refs.join("")}`);
    };
  }

  test("get_branch_context {branch: main} with 2,100 branches under it answers, children cut and counted", async () => {
    const children = Array.from({ length: 2100 }, (_, i) => `feature/c-${String(i).padStart(4, "0")}`);
    const server = await serve(
      {},
      repository(["main", ...children], (i) => (i === 0 ? undefined : "main")),
    );
    const call = server.call("get_branch_context", { branch: "main" });
    const latency = await pingMs(server);
    const result = await call;
    expect(result.isError).toBe(false);
    const data = result.structured as { branch: { children: unknown[] }; omitted: { children: number }; hint: string };
    expect(data.branch.children.length + data.omitted.children).toBe(2100);
    expect(data.hint).toContain(`${data.omitted.children.toLocaleString("en-US")} more children`);
    expect(latency).toBeLessThan(PING_BAR_MS);
  });

  test("a 5,000-long twig chain answers, the stack cut and counted", async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `twig-${i}`);
    const server = await serve(
      {},
      repository(names, (i) => (i === 0 ? undefined : `twig-${i - 1}`)),
    );
    const call = server.call("get_branch_context", { branch: "twig-4999" });
    const latency = await pingMs(server);
    const result = await call;
    expect(result.isError).toBe(false);
    const data = result.structured as { stack: unknown[]; omitted: { stack: number } };
    expect(data.stack.length + data.omitted.stack).toBe(5000);
    expect(latency).toBeLessThan(PING_BAR_MS);
  });
});

describe("one reply per request (47.6)", () => {
  test("stateless requests of any size or shape each get exactly one reply", async () => {
    const server = await serve();
    const big = "x".repeat(100_000);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const requests: Array<[string, Record<string, unknown>]> = [
      ["completion/complete", { ref: { type: "ref/prompt", name: big }, argument: { name: "branch", value: "" } }],
      ["completion/complete", { ref: { type: "ref/prompt", name: big }, argument: { name: big, value: big } }],
      ["completion/complete", { ref: { type: "ref/resource", uri: big }, argument: { name: "name", value: "" } }],
      ["completion/complete", { ref: { type: "ref/prompt", name: big } }],
      ["prompts/get", { name: big }],
      ["resources/read", { uri: big }],
      ["tools/call", { name: big, arguments: {} }],
    ];
    const ids = requests.map((_, i) => `stateless-${i}`);
    for (const [i, [method, params]] of requests.entries()) {
      server.send({ jsonrpc: "2.0", id: ids[i], method, params: { ...params, _meta: meta } });
    }
    const replies = await Promise.all(ids.map((id) => server.response(id)));
    // A ping after them all is answered after them all: nothing more for those ids is on its way.
    expect(await pingMs(server)).toBeLessThan(PING_BAR_MS);
    for (const [i, id] of ids.entries()) {
      expect(server.responsesTo(id)).toHaveLength(1);
      // No reply echoes 100,000 characters back.
      expect(JSON.stringify(replies[i]).length).toBeLessThan(20_000);
    }
  });
});

describe("cancellation is its own outcome (47.8)", () => {
  test("a call withdrawn while GitHub stalls is logged as cancelled, gets no reply, and ping answers", async () => {
    const { promise: arrived, resolve } = Promise.withResolvers<void>();
    const api = graphql(() => {
      resolve();
      return new Promise<string>(() => {});
    });
    const server = await serve({ GITHUB_API_URL: api.url, GH_TOKEN: TOKEN, TWIG_MCP_HTTP_TIMEOUT_MS: "600000" });
    server.send({
      jsonrpc: "2.0",
      id: "withdrawn",
      method: "tools/call",
      params: { name: "get_review_threads", arguments: { owner: "o", repo: "r", pr_number: 1 } },
    });
    await arrived;
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "withdrawn" } });
    await server.until(() => server.stderr().includes("get_review_threads cancelled by the client"));
    expect(await pingMs(server)).toBeLessThan(PING_BAR_MS);
    expect(server.responsesTo("withdrawn")).toEqual([]);
    expect(server.stderr()).not.toContain("network_error");
  });
});
