/**
 * Credential routing and unbounded bodies (issue 19, classes 6 and 7), through the compiled binary
 * and driven the way an attacker would: a cloned repository whose `origin` names the attacker's
 * host, a GitHub API that answers with a `Link` to another origin, and one that never ends its
 * body. Every server is a real HTTP(S) server on 127.0.0.1 that records what reaches it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pullRequestPayload, pullRequestSimplePayload } from "../support/fake-github.ts";
import { RawServer } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test starts a compiled server; the machine running the suite may be busy.
setDefaultTimeout(60_000);

const TOKEN = "ghp_hostileGITHUBtoken0000000000000000000";

interface Recorded {
  path: string;
  authorization: string | null;
}

interface Hostile {
  url: string;
  port: number;
  seen: Recorded[];
  stop(): void;
}

const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on 127.0.0.1 answering every request with `answer`, keeping each request's path and credentials. */
function hostileServer(
  answer: (request: Request, origin: string) => Response,
  tls?: { cert: string; key: string },
): Hostile {
  const seen: Recorded[] = [];
  const scheme = tls ? "https" : "http";
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    ...(tls ? { tls } : {}),
    fetch(request): Response {
      const url = new URL(request.url);
      seen.push({ path: `${url.pathname}${url.search}`, authorization: request.headers.get("authorization") });
      return answer(request, `${scheme}://127.0.0.1:${server.port}`);
    },
  });
  const hostile = {
    url: `${scheme}://127.0.0.1:${server.port}`,
    port: server.port as number,
    seen,
    stop: () => server.stop(true),
  };
  cleanups.push(hostile.stop);
  return hostile;
}

/** makeWorld, changed by `setUp`, and a compiled server started in it (all stopped after the test). */
async function serve(env: Record<string, string>, setUp: (world: World) => void = () => {}) {
  const world = makeWorld(env);
  cleanups.push(world.cleanup);
  setUp(world);
  const server = await RawServer.start({ cwd: world.root, env: world.env, args: ["-vvv"] });
  cleanups.push(() => server.close());
  await server.initialize();
  return { world, server };
}

describe("the .netrc default entry", () => {
  let certDir: string;
  let tls: { cert: string; key: string };

  beforeAll(() => {
    certDir = mkdtempSync(join(tmpdir(), "twig-mcp-tls-"));
    const cert = join(certDir, "cert.pem");
    const key = join(certDir, "key.pem");
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-days",
        "1",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    tls = { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
  });

  afterAll(() => rmSync(certDir, { recursive: true, force: true }));

  /**
   * A clone whose `origin` is `https://127.0.0.1:<port>/o/r.git` — an Enterprise-style host that
   * only the remote names, so the API root is `https://127.0.0.1:<port>/api/v3` — and a `.netrc`
   * holding nothing but a `default` entry. The self-signed certificate is accepted, so a refused
   * token is the server's choice, not a TLS failure.
   */
  async function cloneFromHostile(env: (port: number) => Record<string, string>) {
    const hostile = hostileServer(() => Response.json(pullRequestPayload({ owner: "o", repo: "r", number: 1 })), tls);
    const { server } = await serve({ NODE_TLS_REJECT_UNAUTHORIZED: "0", ...env(hostile.port) }, (world) => {
      world.repo.git("remote", "set-url", "origin", `https://127.0.0.1:${hostile.port}/o/r.git`);
      writeFileSync(join(world.home, ".netrc"), `default login me password ${TOKEN}\n`, { mode: 0o600 });
    });
    return { hostile, server };
  }

  test("is not sent to a host that only a git remote names", async () => {
    const { hostile, server } = await cloneFromHostile(() => ({}));
    const result = await server.call("get_pull_request", { pr_number: 1 });
    expect(result.isError).toBe(true);
    expect(result.envelope.error?.code).toBe("credentials_missing");
    expect(result.envelope.error?.message).toContain(`default entry: not sent to 127.0.0.1:${hostile.port}`);
    expect(result.text).not.toContain(TOKEN);
    expect(hostile.seen.filter((request) => request.authorization?.includes(TOKEN))).toEqual([]);
  });

  test("is sent when the user names that host with GH_HOST (the server is reached over TLS)", async () => {
    const { hostile, server } = await cloneFromHostile((port) => ({ GH_HOST: `127.0.0.1:${port}` }));
    const result = await server.call("get_pull_request", { pr_number: 1 });
    expect(result.envelope.error).toBeUndefined();
    expect(hostile.seen[0]).toEqual({ path: "/api/v3/repos/o/r/pulls/1", authorization: `token ${TOKEN}` });
  });
});

describe("pagination", () => {
  test("a next-page link to another origin is not followed, and the list says there is more", async () => {
    const elsewhere = hostileServer(() => Response.json([]));
    const api = hostileServer(() =>
      Response.json([pullRequestSimplePayload({ owner: "o", repo: "r", number: 1 })], {
        headers: { link: `<${elsewhere.url}/repos/o/r/pulls?page=2&per_page=100>; rel="next"` },
      }),
    );
    const { server } = await serve({ GITHUB_API_URL: api.url, GH_TOKEN: TOKEN });
    const result = await server.call("list_pull_requests", { owner: "o", repo: "r", limit: 150, state: "all" });
    expect(result.envelope.error).toBeUndefined();
    const data = result.envelope.data as { pull_requests: unknown[]; has_more: boolean };
    expect(data.pull_requests.length).toBe(1);
    expect(data.has_more).toBe(true);
    // The API server was reached with the token; the origin its link named was not reached at all.
    expect(api.seen[0]?.authorization).toBe(`token ${TOKEN}`);
    expect(elsewhere.seen).toEqual([]);
    await server.until(() => server.stderr().includes("next-page link to another origin"));
  });
});

describe("response size", () => {
  test("an endless 200 body stops at the 16 MiB cap, and the server keeps answering", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    // The body never ends for a reader that keeps reading; only past 256 MiB does the server give
    // up (so a client without a cap fails the test instead of filling the machine's memory).
    const safetyStop = 256 * 1024 * 1024;
    let sent = 0;
    const api = hostileServer(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              if (sent >= safetyStop) {
                controller.error(new Error("safety stop"));
                return;
              }
              sent += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    );
    const { server } = await serve({
      GITHUB_API_URL: api.url,
      GH_TOKEN: TOKEN,
      TWIG_MCP_HTTP_TIMEOUT_MS: "60000",
    });
    const result = await server.call(
      "get_pull_request",
      { owner: "o", repo: "r", pr_number: 1 },
      { timeoutMs: 55_000 },
    );
    expect(result.isError).toBe(true);
    expect(result.envelope.error?.code).toBe("network_error");
    expect(result.envelope.error?.message).toContain("more than 16 MiB");
    // Refused, not retried, and reading stopped near the cap (socket buffers aside).
    expect(api.seen.length).toBe(1);
    expect(sent).toBeLessThan(safetyStop);
    const next = await server.call("get_current_branch");
    expect(next.isError).toBe(false);
    expect((next.envelope.data as { branch: string }).branch).toBe("feature/auth-ui");
  });
});
