/**
 * Compressed bodies cannot outrun the 16 MiB cap: a 0.26 MB gzip body that inflates to 270 MB is
 * refused after at most the cap's worth of inflated bytes, for GitHub and Jira alike. Memory is
 * measured as the growth of this process's RSS (generous bound, no timing): inflating the body
 * whole would add the full 270 MB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createGzip, deflateSync, gzipSync } from "node:zlib";
import * as v from "valibot";
import { MAX_RESPONSE_BYTES } from "../../src/core/http-policy.ts";
import { createLogger } from "../../src/core/log.ts";
import { createGitHubFetch, EtagCache, RequestAborted } from "../../src/github/http.ts";
import { API_TOKEN, EMAIL, jiraContext, never } from "../jira/helpers.ts";

const INFLATED_BYTES = 270 * 1024 * 1024;
/** Far below the 270 MB an inflated-whole body costs, far above the cap's 16 MiB plus noise. */
const RSS_BOUND = 140 * 1024 * 1024;

/** A gzip body of `size` spaces, compressed a megabyte at a time so making it stays small. */
async function gzipBomb(size: number): Promise<Uint8Array> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => gzip.on("end", resolve));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let written = 0; written < size; written += block.length) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once("drain", resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

let bomb: Uint8Array;
let server: ReturnType<typeof Bun.serve>;
/** What the server answers next, by path. */
const answers = new Map<string, () => Response>();

beforeAll(async () => {
  bomb = await gzipBomb(INFLATED_BYTES);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const answer = answers.get(new URL(request.url).pathname);
      if (answer) return answer();
      return new Response(bomb, { headers: { "content-type": "application/json", "content-encoding": "gzip" } });
    },
  });
});
afterAll(() => server.stop(true));

function github() {
  return createGitHubFetch(fetch, {
    timeoutMs: 60_000,
    etags: new EtagCache(),
    tokenId: "test",
    log: createLogger(0, () => {}),
  });
}

/** RSS growth while `run` runs, sampled on every turn of the event loop. */
async function rssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growth: number }> {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 0);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe("a gzip bomb (Content-Encoding: gzip)", () => {
  test("the body is about 0.26 MB and inflates to 270 MB", () => {
    expect(bomb.byteLength).toBeLessThan(300 * 1024);
    expect(bomb.byteLength).toBeGreaterThan(200 * 1024);
  });

  test("GitHub: refused at the cap, memory bounded", async () => {
    const { result, growth } = await rssGrowth(() => github()(`${server.url.href}repos/o/r`).catch((e: unknown) => e));
    expect(result).toBeInstanceOf(RequestAborted);
    expect((result as RequestAborted).message).toContain("GitHub sent more than 16 MiB");
    expect(growth).toBeLessThan(RSS_BOUND);
  }, 60_000);

  test("Jira: refused at the cap, memory bounded", async () => {
    const made = jiraContext({ env: { JIRA_HOST: server.url.href, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN } });
    try {
      const client = await made.ctx.jira();
      if (!client.ok) throw new Error(client.error.message);
      const { result, growth } = await rssGrowth(() =>
        client.value.request({ method: "GET", path: "/rest/api/2/issue/A-1", schema: v.unknown() }, never()),
      );
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe("network_error");
      expect(result.error.message).toContain(`sent more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
      expect(growth).toBeLessThan(RSS_BOUND);
    } finally {
      made.cleanup();
    }
  }, 60_000);
});

describe("ordinary compressed bodies", () => {
  test("gzip and deflate bodies are decoded; the request asks for them", async () => {
    let asked: string | null = null;
    const body = JSON.stringify({ name: "réglé ✓" });
    answers.set("/gzip", () => new Response(gzipSync(body), { headers: { "content-encoding": "gzip" } }));
    answers.set("/deflate", () => new Response(deflateSync(body), { headers: { "content-encoding": "deflate" } }));
    answers.set("/plain", () => new Response(body));
    const get = github();
    for (const path of ["gzip", "deflate", "plain"]) {
      const response = await get(`${server.url.href}${path}`);
      expect(await response.json()).toEqual({ name: "réglé ✓" });
      expect(response.headers.get("content-encoding")).toBeNull();
    }
    const echo = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        asked = request.headers.get("accept-encoding");
        return new Response("{}");
      },
    });
    try {
      await get(echo.url.href);
    } finally {
      echo.stop(true);
    }
    expect(asked as string | null).toBe("gzip, deflate");
  });

  test("Jira: a gzip answer is decoded", async () => {
    answers.set(
      "/rest/api/2/issue/A-2",
      () => new Response(gzipSync(JSON.stringify({ key: "A-2" })), { headers: { "content-encoding": "gzip" } }),
    );
    const made = jiraContext({ env: { JIRA_HOST: server.url.href, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN } });
    try {
      const client = await made.ctx.jira();
      if (!client.ok) throw new Error(client.error.message);
      const schema = v.object({ key: v.string() });
      const result = await client.value.request({ method: "GET", path: "/rest/api/2/issue/A-2", schema }, never());
      expect(result).toEqual({ ok: true, value: { key: "A-2" } });
    } finally {
      made.cleanup();
    }
  });

  test("an encoding the client does not decode is a failure, not garbage", async () => {
    answers.set("/odd", () => new Response("xx", { headers: { "content-encoding": "compress" } }));
    const failure = await github()(`${server.url.href}odd`).catch((e: unknown) => e);
    expect(String(failure)).toContain("unsupported Content-Encoding compress");
  });

  test("an encoding named like an object's own property is unknown too", async () => {
    for (const name of ["constructor", "toString", "__proto__"]) {
      answers.set(`/${name}`, () => new Response("xx", { headers: { "content-encoding": name } }));
      const failure = await github()(`${server.url.href}${name}`).catch((e: unknown) => e);
      expect(String(failure)).toContain(`unsupported Content-Encoding ${name}`);
    }
  });
});
