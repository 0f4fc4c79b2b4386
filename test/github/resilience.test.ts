/**
 * The retry and rate-limit hook on a real Octokit talking to a real HTTP server on 127.0.0.1:
 * attempts are counted and timed where they arrive.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Octokit } from "@octokit/rest";
import { createLogger } from "../../src/core/log.ts";
import { EtagCache } from "../../src/github/etag-cache.ts";
import { createGitHubFetch, RequestAborted } from "../../src/github/http.ts";
import { type ResilienceOptions, resilientRequest } from "../../src/github/resilience.ts";
import { startDroppingServer } from "../support/fake-github.ts";

type Answer = (request: Request) => Response | Promise<Response>;

interface Arrival {
  at: number;
  /** When the answer was sent; `Infinity` while it is pending. */
  end: number;
}

const ok: Answer = () => Response.json({ ok: true });
let answers: Answer[] = [];
let fallback: Answer = ok;
let arrivals: Arrival[] = [];
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const arrival = { at: performance.now(), end: Number.POSITIVE_INFINITY };
      arrivals.push(arrival);
      try {
        return await (answers.shift() ?? fallback)(request);
      } finally {
        arrival.end = performance.now();
      }
    },
  });
});
afterAll(() => server.stop(true));
afterEach(() => {
  answers = [];
  fallback = ok;
  arrivals = [];
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => {
  return () => Response.json(body, { status, headers });
};
const serverError = json(500, { message: "Server Error" });
const FIXED_NOW = Date.UTC(2025, 5, 3, 12, 0, 0);
const secondsFromNow = (seconds: number) => String(FIXED_NOW / 1000 + seconds);
const primaryLimit = (resetInSeconds: number) =>
  json(
    403,
    { message: "API rate limit exceeded for user ID 1." },
    { "x-ratelimit-remaining": "0", "x-ratelimit-reset": secondsFromNow(resetInSeconds) },
  );
const SECONDARY = {
  message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
  documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
};

interface ClientOptions {
  retries?: number;
  retryDelayMs?: number;
  rateLimitSecondMs?: number;
  timeoutMs?: number;
  maxInFlight?: number;
  url?: string;
}

function client(options: ClientOptions = {}) {
  const logs: string[] = [];
  const log = createLogger(1, (line) => logs.push(line));
  const timeoutMs = options.timeoutMs ?? 2000;
  const resilience: ResilienceOptions = {
    settings: {
      timeoutMs,
      retries: options.retries ?? 2,
      retryDelayMs: options.retryDelayMs ?? 1,
      maxRateLimitWaitSeconds: 5,
      rateLimitSecondMs: options.rateLimitSecondMs ?? 1,
    },
    log,
    now: () => FIXED_NOW,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
  };
  const octokit = new Octokit({
    baseUrl: options.url ?? server.url.href.replace(/\/$/, ""),
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    request: {
      fetch: createGitHubFetch({ fetch, timeoutMs, etags: new EtagCache(), tokenId: "test", log }),
    },
  });
  octokit.hook.wrap("request", resilientRequest(resilience));
  const get = (signal?: AbortSignal) =>
    octokit.request("GET /repos/{owner}/{repo}", { owner: "octo", repo: "r", request: { signal } });
  return { get, logs };
}

async function failure(promise: Promise<unknown>): Promise<{ status?: number; name?: string } & Error> {
  try {
    await promise;
  } catch (error) {
    return error as { status?: number } & Error;
  }
  throw new Error("expected the request to fail");
}

/** Most of this test's requests the server was answering at once. */
function maxInFlight(): number {
  return Math.max(0, ...arrivals.map((a) => arrivals.filter((b) => b.at <= a.at && a.at < b.end).length));
}

const gaps = () => arrivals.slice(1).map((arrival, i) => arrival.at - (arrivals[i] as Arrival).at);

describe("server errors and failed connections", () => {
  test("a 5xx is retried after n² × retryDelayMs, then the answer is returned", async () => {
    answers = [serverError, json(502, { message: "Bad Gateway" })];
    const { get } = client({ retries: 2, retryDelayMs: 40 });
    const response = await get();
    expect(response.status).toBe(200);
    expect(arrivals).toHaveLength(3);
    const [first, second] = gaps() as [number, number];
    expect(first).toBeGreaterThanOrEqual(39);
    expect(first).toBeLessThan(160);
    expect(second).toBeGreaterThanOrEqual(159);
  });

  test("a persistent 5xx is tried 1 + retries times, and the last error is thrown", async () => {
    fallback = json(503, { message: "Unavailable" });
    for (const retries of [0, 1, 3]) {
      arrivals = [];
      const error = await failure(client({ retries }).get());
      expect(error.status).toBe(503);
      expect(arrivals).toHaveLength(1 + retries);
    }
  });

  test("a dropped connection is retried like a 5xx", async () => {
    const dropper = await startDroppingServer();
    try {
      const error = await failure(client({ retries: 2, url: dropper.url }).get());
      expect(error.status).toBe(500);
      expect(dropper.connections()).toBe(3);
    } finally {
      dropper.stop();
    }
  });

  test("client errors are never retried", async () => {
    for (const status of [400, 401, 403, 404, 410, 422, 429, 451]) {
      arrivals = [];
      answers = [json(status, { message: "no" })];
      const error = await failure(client({ retries: 3 }).get());
      expect(error.status).toBe(status);
      expect(arrivals).toHaveLength(1);
    }
  });

  test("a timeout is thrown at once, not retried", async () => {
    fallback = async () => {
      await Bun.sleep(300);
      return Response.json({});
    };
    const error = await failure(client({ retries: 3, timeoutMs: 50 }).get());
    expect(error).toBeInstanceOf(RequestAborted);
    expect((error as RequestAborted).reason).toBe("timeout");
    expect(arrivals).toHaveLength(1);
  });
});

describe("rate limits", () => {
  test("an exhausted primary limit is waited out once, until a second after the reset", async () => {
    answers = [primaryLimit(2)];
    const { get, logs } = client({ rateLimitSecondMs: 20 });
    expect((await get()).status).toBe(200);
    expect(arrivals).toHaveLength(2);
    // 2 s to the reset plus 1 s, at 20 ms a second.
    expect(gaps()[0]).toBeGreaterThanOrEqual(59);
    expect(logs.join("")).toContain("GitHub primary rate limit on GET /repos/{owner}/{repo}: retrying once in 3 s");
  });

  test("a primary limit still exhausted after the wait is thrown", async () => {
    fallback = primaryLimit(1);
    const { get, logs } = client();
    const error = await failure(get());
    expect(error.status).toBe(403);
    expect(arrivals).toHaveLength(2);
    expect(logs.join("")).toContain("not retrying (GitHub asks for 2 s)");
  });

  test("a primary limit resetting later than the longest wait is thrown at once", async () => {
    fallback = primaryLimit(3600);
    const { get, logs } = client();
    const error = await failure(get());
    expect(error.status).toBe(403);
    expect(arrivals).toHaveLength(1);
    expect(logs.join("")).toContain(
      "GitHub primary rate limit on GET /repos/{owner}/{repo}: not retrying (GitHub asks for 3601 s)",
    );
  });

  test("a secondary limit is waited out for its Retry-After, once", async () => {
    answers = [json(429, SECONDARY, { "retry-after": "3" })];
    const { get, logs } = client({ rateLimitSecondMs: 20 });
    expect((await get()).status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(gaps()[0]).toBeGreaterThanOrEqual(59);
    expect(logs.join("")).toContain("GitHub secondary rate limit on GET /repos/{owner}/{repo}: retrying once in 3 s");

    arrivals = [];
    fallback = json(403, SECONDARY, { "retry-after": "1" });
    expect((await failure(get())).status).toBe(403);
    expect(arrivals).toHaveLength(2);
  });

  test("a secondary limit without Retry-After means a minute: not waited for", async () => {
    fallback = json(403, SECONDARY);
    const { get, logs } = client();
    expect((await failure(get())).status).toBe(403);
    expect(arrivals).toHaveLength(1);
    expect(logs.join("")).toContain("not retrying (GitHub asks for 60 s)");
  });

  test("Retry-After without a rate-limit message, and a 403 without any sign, are thrown at once", async () => {
    for (const answer of [json(429, { message: "slow down" }, { "retry-after": "1" }), json(403, { message: "SSO" })]) {
      arrivals = [];
      answers = [answer];
      const { get, logs } = client({ retries: 3 });
      await failure(get());
      expect(arrivals).toHaveLength(1);
      expect(logs).toEqual([]);
    }
  });

  test("a rate-limit wait does not use up the retries for server errors", async () => {
    answers = [primaryLimit(0), serverError, serverError];
    expect((await client({ retries: 2 }).get()).status).toBe(200);
    expect(arrivals).toHaveLength(4);
  });
});

describe("cancellation", () => {
  test("cancelling during a retry back-off ends the wait at once, without another attempt", async () => {
    fallback = serverError;
    const controller = new AbortController();
    const { get } = client({ retries: 2, retryDelayMs: 5000 });
    const started = performance.now();
    const pending = failure(get(controller.signal));
    while (arrivals.length === 0) await Bun.sleep(5);
    controller.abort();
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(RequestAborted);
    expect((error as RequestAborted).reason).toBe("cancelled");
    await Bun.sleep(50);
    expect(arrivals).toHaveLength(1);
  });

  test("cancelling during a rate-limit wait ends it at once", async () => {
    fallback = primaryLimit(3);
    const controller = new AbortController();
    const { get } = client({ rateLimitSecondMs: 1000 });
    const started = performance.now();
    const pending = failure(get(controller.signal));
    while (arrivals.length === 0) await Bun.sleep(5);
    controller.abort();
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(1000);
    expect((error as RequestAborted).reason).toBe("cancelled");
    expect(arrivals).toHaveLength(1);
  });

  test("an already-cancelled request sends nothing", async () => {
    const error = await failure(client().get(AbortSignal.abort()));
    expect((error as RequestAborted).reason).toBe("cancelled");
    expect(arrivals).toHaveLength(0);
  });
});

describe("scheduling", () => {
  test("a request that needs no retry sets no timer", async () => {
    const { get } = client();
    await get(); // first use: connection and code paths
    const original = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return original(...args);
    }) as typeof setTimeout;
    try {
      expect((await get()).status).toBe(200);
      await Promise.all([get(), get(), get()]);
    } finally {
      globalThis.setTimeout = original;
    }
    expect(timers).toBe(0);
  });

  test("requests beyond the in-flight cap wait for a slot, and all are answered", async () => {
    fallback = async () => {
      await Bun.sleep(30);
      return Response.json({ ok: true });
    };
    const { get } = client({ maxInFlight: 2 });
    // A second burst finds the slots exactly as the first left them.
    for (let burst = 0; burst < 2; burst++) {
      arrivals = [];
      const responses = await Promise.all(Array.from({ length: 6 }, () => get()));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(arrivals).toHaveLength(6);
      expect(maxInFlight()).toBe(2);
    }
  });

  test("a request cancelled while waiting for a slot is never sent and frees nothing it did not hold", async () => {
    fallback = async () => {
      await Bun.sleep(60);
      return Response.json({ ok: true });
    };
    const { get } = client({ maxInFlight: 1 });
    const controller = new AbortController();
    const first = get();
    const queued = failure(get(controller.signal));
    const third = get();
    await Bun.sleep(10);
    controller.abort();
    expect((await queued).name).toBe("AbortError");
    expect((await first).status).toBe(200);
    expect((await third).status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(maxInFlight()).toBe(1);
  });
});
