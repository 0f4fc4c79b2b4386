/**
 * The retry and throttling plugins, as twig-mcp configures them, on a real Octokit talking to a
 * real HTTP server on 127.0.0.1: attempts are counted where they arrive, and the waits between
 * them are read from the timers set, never from a clock, so a busy machine cannot change the outcome.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { loadOctokit, resilienceOptions } from "../../src/github/client.ts";
import { createGitHubFetch, EtagCache, RequestAborted, untilCancelled } from "../../src/github/http.ts";
import { startDroppingServer } from "../support/fake-github.ts";

type Answer = (request: Request) => Response | Promise<Response>;

const ok: Answer = () => Response.json({ ok: true });
let answers: Answer[] = [];
let fallback: Answer = ok;
/** Requests as they arrive (their paths); a test empties it to count afresh. */
let arrivals: string[] = [];
let inFlight = 0;
/** Most requests the server was answering at once since the last reset. */
let peakInFlight = 0;
let arrivalWaiters: Array<() => void> = [];
let server: ReturnType<typeof Bun.serve>;

/** Resolves once `count` requests have arrived since `arrivals` was last emptied. */
function arrived(count = 1): Promise<void> {
  if (arrivals.length >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (arrivals.length < count) return false;
      resolve();
      return true;
    };
    arrivalWaiters.push(() => void check());
  });
}

/** Answers held until released (or until the test ends), so a request stays in flight for as long as a test needs. */
const releases: Array<() => void> = [];
function held(answer: Answer = ok): Answer {
  return async (request) => {
    await new Promise<void>((resolve) => releases.push(resolve));
    return answer(request);
  };
}
function releaseHeld(): void {
  for (const release of releases.splice(0)) release();
}

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      arrivals.push(new URL(request.url).pathname);
      inFlight++;
      peakInFlight = Math.max(peakInFlight, inFlight);
      for (const waiter of arrivalWaiters) waiter();
      try {
        return await (answers.shift() ?? fallback)(request);
      } finally {
        inFlight--;
      }
    },
  });
});
afterAll(() => server.stop(true));
afterEach(() => {
  releaseHeld();
  answers = [];
  fallback = ok;
  arrivals = [];
  arrivalWaiters = [];
  peakInFlight = 0;
});

/**
 * The delays of the timers set while `run` runs (timers still fire as usual): the hook waits with
 * `setTimeout`, so this is what it chose to wait, whatever the machine's load did to the clock.
 */
async function timerDelays<T>(
  run: (timerSet: (ms: number) => Promise<void>) => Promise<T>,
): Promise<{ result: T; delays: number[] }> {
  const original = globalThis.setTimeout;
  const delays: number[] = [];
  const waiters: Array<{ ms: number; resolve: () => void }> = [];
  globalThis.setTimeout = ((handler: () => void, ms?: number, ...rest: unknown[]) => {
    delays.push(ms ?? 0);
    for (const waiter of waiters.filter((w) => w.ms === ms)) waiter.resolve();
    return original(handler, ms, ...rest);
  }) as typeof setTimeout;
  // Resolves once a timer of `ms` has been set: the moment the hook starts a wait.
  const timerSet = (ms: number) =>
    delays.includes(ms) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ ms, resolve }));
  try {
    return { result: await run(timerSet), delays };
  } finally {
    globalThis.setTimeout = original;
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => {
  return () => Response.json(body, { status, headers });
};
const serverError = json(500, { message: "Server Error" });
// The throttling plugin reads the clock itself: a reset `seconds` after the current whole second
// is waited for `seconds` + 1 (the plugin rounds up and adds one).
const secondsFromNow = (seconds: number) => String(Math.floor(Date.now() / 1000) + seconds);
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

async function client(options: ClientOptions = {}) {
  const logs: string[] = [];
  const log = createLogger(1, (line) => logs.push(line));
  const timeoutMs = options.timeoutMs ?? 2000;
  const settings = {
    timeoutMs,
    retries: options.retries ?? 2,
    retryDelayMs: options.retryDelayMs ?? 1,
    maxRateLimitWaitSeconds: 5,
    rateLimitSecondMs: options.rateLimitSecondMs ?? 1,
  };
  const { Octokit, Bottleneck } = await loadOctokit();
  const octokit = new Octokit({
    ...resilienceOptions(Bottleneck, settings, log, options.maxInFlight),
    baseUrl: options.url ?? server.url.href.replace(/\/$/, ""),
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    request: {
      fetch: createGitHubFetch(fetch, { timeoutMs, etags: new EtagCache(), tokenId: "test", log }),
    },
  });
  const get = (signal?: AbortSignal) =>
    untilCancelled(
      octokit.request("GET /repos/{owner}/{repo}", { owner: "octo", repo: "r", request: { signal } }),
      signal,
    );
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

describe("server errors and failed connections", () => {
  test("a 5xx is retried after n² × retryDelayMs, then the answer is returned", async () => {
    answers = [serverError, json(502, { message: "Bad Gateway" })];
    const { get } = await client({ retries: 2, retryDelayMs: 40 });
    const { result: response, delays } = await timerDelays(() => get());
    expect(response.status).toBe(200);
    expect(arrivals).toHaveLength(3);
    // 1² × 40 before the second attempt, 2² × 40 before the third (the request timeouts are 2000).
    expect(delays.filter((ms) => ms !== 2000 && ms !== 0)).toEqual([40, 160]);
  });

  test("a persistent 5xx is tried 1 + retries times, and the last error is thrown", async () => {
    fallback = json(503, { message: "Unavailable" });
    for (const retries of [0, 1, 3]) {
      arrivals = [];
      const error = await failure((await client({ retries })).get());
      expect(error.status).toBe(503);
      expect(arrivals).toHaveLength(1 + retries);
    }
  });

  test("a dropped connection is retried like a 5xx", async () => {
    const dropper = await startDroppingServer();
    try {
      const error = await failure((await client({ retries: 2, url: dropper.url })).get());
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
      const error = await failure((await client({ retries: 3 })).get());
      expect(error.status).toBe(status);
      expect(arrivals).toHaveLength(1);
    }
  });

  test("a timeout is thrown at once, not retried", async () => {
    fallback = held();
    const error = await failure((await client({ retries: 3, timeoutMs: 50 })).get());
    expect(error).toBeInstanceOf(RequestAborted);
    expect((error as RequestAborted).reason).toBe("timeout");
    expect(arrivals).toHaveLength(1);
  });
});

describe("rate limits", () => {
  test("an exhausted primary limit is waited out once, until a second after the reset", async () => {
    answers = [primaryLimit(2)];
    const { get, logs } = await client({ rateLimitSecondMs: 20 });
    const { result, delays } = await timerDelays(() => get());
    expect(result.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    // 2 s to the reset plus 1 s, at 20 ms a second; a second that turns between the answer and
    // the plugin's reading of the clock takes one off.
    expect(delays.some((delay) => delay === 60 || delay === 40)).toBe(true);
    expect(logs.join("")).toMatch(
      /GitHub primary rate limit on GET \/repos\/\{owner\}\/\{repo\}: retrying once in [23] s/,
    );
  });

  test("a primary limit still exhausted after the wait is thrown", async () => {
    fallback = primaryLimit(1);
    const { get, logs } = await client();
    const error = await failure(get());
    expect(error.status).toBe(403);
    expect(arrivals).toHaveLength(2);
    // 1 s to the reset plus 1 s, or 1 s when a second turns before the plugin reads the clock.
    expect(logs.join("")).toMatch(/not retrying \(GitHub asks for [12] s\)/);
  });

  test("a primary limit resetting later than the longest wait is thrown at once", async () => {
    fallback = primaryLimit(3600);
    const { get, logs } = await client();
    const error = await failure(get());
    expect(error.status).toBe(403);
    expect(arrivals).toHaveLength(1);
    // 3,600 s to the reset plus 1 s, or 3,600 s when a second turns before the plugin reads the clock.
    expect(logs.join("")).toMatch(
      /GitHub primary rate limit on GET \/repos\/\{owner\}\/\{repo\}: not retrying \(GitHub asks for 360[01] s\)/,
    );
  });

  test("a secondary limit is waited out for its Retry-After, once", async () => {
    answers = [json(429, SECONDARY, { "retry-after": "3" })];
    const { get, logs } = await client({ rateLimitSecondMs: 20 });
    const { result, delays } = await timerDelays(() => get());
    expect(result.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(delays).toContain(60);
    expect(logs.join("")).toContain("GitHub secondary rate limit on GET /repos/{owner}/{repo}: retrying once in 3 s");

    arrivals = [];
    fallback = json(403, SECONDARY, { "retry-after": "1" });
    expect((await failure(get())).status).toBe(403);
    expect(arrivals).toHaveLength(2);
  });

  test("a secondary limit without Retry-After means a minute: not waited for", async () => {
    fallback = json(403, SECONDARY);
    const { get, logs } = await client();
    expect((await failure(get())).status).toBe(403);
    expect(arrivals).toHaveLength(1);
    expect(logs.join("")).toContain("not retrying (GitHub asks for 60 s)");
  });

  test("Retry-After without a rate-limit message, and a 403 without any sign, are thrown at once", async () => {
    for (const answer of [json(429, { message: "slow down" }, { "retry-after": "1" }), json(403, { message: "SSO" })]) {
      arrivals = [];
      answers = [answer];
      const { get, logs } = await client({ retries: 3 });
      await failure(get());
      expect(arrivals).toHaveLength(1);
      expect(logs).toEqual([]);
    }
  });

  test("a rate-limit wait does not use up the retries for server errors", async () => {
    answers = [primaryLimit(0), serverError, serverError];
    expect((await (await client({ retries: 2 })).get()).status).toBe(200);
    expect(arrivals).toHaveLength(4);
  });
});

describe("cancellation", () => {
  test("cancelling during a retry back-off ends the wait at once, without another attempt", async () => {
    fallback = serverError;
    const controller = new AbortController();
    // A back-off of ten minutes: only the cancellation can end this call within the test's limit.
    const { get } = await client({ retries: 2, retryDelayMs: 600_000 });
    const { result: error } = await timerDelays(async (timerSet) => {
      const pending = failure(get(controller.signal));
      await timerSet(600_000);
      controller.abort();
      return pending;
    });
    expect(error).toBeInstanceOf(RequestAborted);
    expect((error as RequestAborted).reason).toBe("cancelled");
    expect(arrivals).toHaveLength(1);
  });

  test("cancelling during a rate-limit wait ends it at once", async () => {
    fallback = primaryLimit(3);
    const controller = new AbortController();
    // 4 s to wait at ten minutes a second: only the cancellation can end it within the test's limit. The reset was
    // stamped when the answer was made, so on a busy machine a second or two may pass before the plugin reads it.
    const { get } = await client({ rateLimitSecondMs: 600_000 });
    const { result: error } = await timerDelays(async (timerSet) => {
      const pending = failure(get(controller.signal));
      await Promise.race([2, 3, 4].map((seconds) => timerSet(seconds * 600_000)));
      controller.abort();
      return pending;
    });
    expect((error as RequestAborted).reason).toBe("cancelled");
    expect(arrivals).toHaveLength(1);
  });

  test("an already-cancelled request sends nothing", async () => {
    const error = await failure((await client()).get(AbortSignal.abort()));
    expect((error as RequestAborted).reason).toBe("cancelled");
    expect(arrivals).toHaveLength(0);
  });
});

describe("scheduling", () => {
  test("requests beyond the in-flight cap wait for a slot, and all are answered", async () => {
    fallback = held();
    const { get } = await client({ maxInFlight: 2 });
    // A second burst finds the slots exactly as the first left them.
    for (let burst = 0; burst < 2; burst++) {
      arrivals = [];
      peakInFlight = 0;
      const responses = Promise.all(Array.from({ length: 6 }, () => get()));
      // Answered two at a time: each pair is held until both of its requests are in.
      for (let pair = 1; pair <= 3; pair++) {
        await arrived(2 * pair);
        expect(inFlight).toBe(2);
        releaseHeld();
      }
      expect((await responses).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(arrivals).toHaveLength(6);
      expect(peakInFlight).toBe(2);
    }
  });

  test("a request cancelled while waiting for a slot is never sent and frees nothing it did not hold", async () => {
    fallback = held();
    const { get } = await client({ maxInFlight: 1 });
    const controller = new AbortController();
    const first = get();
    const queued = failure(get(controller.signal));
    const third = get();
    // The first holds the only slot (its answer is held), so the second is still queued.
    await arrived(1);
    controller.abort();
    expect((await queued).name).toBe("AbortError");
    releaseHeld();
    expect((await first).status).toBe(200);
    await arrived(2);
    releaseHeld();
    expect((await third).status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(peakInFlight).toBe(1);
  });
});
