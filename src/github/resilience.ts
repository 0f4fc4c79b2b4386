import type { Env } from "../core/context.ts";
import { httpTimeoutMs } from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";
import { RequestAborted } from "./http.ts";

/** Network behaviour of the GitHub client; defaults suit interactive use, tests shrink the delays. */
export function githubSettings(env: Env) {
  const int = (value: string | undefined, max: number, fallback: number) =>
    value !== undefined && /^\s*\d+\s*$/.test(value) && Number(value) <= max ? Number(value) : fallback;
  return {
    /** Per HTTP attempt. */
    timeoutMs: httpTimeoutMs(env),
    /** Extra attempts after a 5xx or a dropped connection. */
    retries: int(env.TWIG_MCP_GITHUB_RETRIES, 10, 2),
    /** Retry n waits n² × this. */
    retryDelayMs: int(env.TWIG_MCP_GITHUB_RETRY_DELAY_MS, 60_000, 500),
    /** A rate-limit wait is honoured once, automatically, only when GitHub asks for at most this long. */
    maxRateLimitWaitSeconds: 5,
    /** Length of one second of a rate-limit wait; only tests change it. */
    rateLimitSecondMs: int(env.TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS, 1000, 1000),
  };
}

export type GitHubSettings = ReturnType<typeof githubSettings>;

/**
 * Client errors never improve on retry. 403 and 429 are retried only as rate limits, by the
 * throttling plugin.
 */
const NOT_RETRIED = [400, 401, 403, 404, 410, 422, 429, 451];

/**
 * GitHub's documented ceiling on concurrent requests (its secondary rate limits): a whole stack's
 * reviews, check runs and statuses go out as one round trip instead of queueing behind ten.
 */
export const MAX_IN_FLIGHT = 100;

/**
 * Octokit with `@octokit/plugin-retry` (5xx and dropped connections, n² × `retryDelayMs` apart)
 * and `@octokit/plugin-throttling` (rate limits), loaded on the first GitHub call. Timeouts,
 * cancellations and refused responses reach Octokit as `AbortError`s (see http.ts), which both
 * plugins pass through without another attempt.
 */
export async function loadOctokit() {
  const [{ Octokit }, { retry }, { throttling }, { default: Bottleneck }] = await Promise.all([
    import("@octokit/rest"),
    import("@octokit/plugin-retry"),
    import("@octokit/plugin-throttling"),
    import("bottleneck/light.js"),
  ]);
  return { Octokit: Octokit.plugin(retry, throttling), Bottleneck };
}

type Loaded = Awaited<ReturnType<typeof loadOctokit>>;

/**
 * The plugins' options for one client: its own concurrency limit (the plugin's shared default
 * allows ten requests at a time across every client), and a rate-limit wait honoured once, only
 * when GitHub asks for at most `maxRateLimitWaitSeconds`; a longer one becomes `rate_limited`.
 */
export function resilienceOptions(
  Bottleneck: Loaded["Bottleneck"],
  { settings, log, maxInFlight = MAX_IN_FLIGHT }: { settings: GitHubSettings; log: Logger; maxInFlight?: number },
) {
  const waitOnce =
    (kind: "primary" | "secondary") =>
    (seconds: number, options: { method?: string; url?: string }, _octokit: unknown, retryCount: number) => {
      const wanted = retryCount === 0 && seconds <= settings.maxRateLimitWaitSeconds;
      log.warn(
        `GitHub ${kind} rate limit on ${options.method ?? "GET"} ${options.url ?? ""}: ` +
          (wanted ? `retrying once in ${seconds} s` : `not retrying (GitHub asks for ${seconds} s)`),
      );
      return wanted;
    };
  return {
    retry: { retries: settings.retries, retryAfterBaseValue: settings.retryDelayMs, doNotRetry: NOT_RETRIED },
    throttle: {
      global: new Bottleneck.Group({ maxConcurrent: Math.max(1, maxInFlight) }),
      retryAfterBaseValue: settings.rateLimitSecondMs,
      onRateLimit: waitOnce("primary"),
      onSecondaryRateLimit: waitOnce("secondary"),
    },
  };
}

/**
 * `request` settled, or a cancellation the moment `signal` aborts: a retry or rate-limit wait in
 * the plugins is a timer they do not stop, and the caller should not sit through it. The request
 * left behind sends nothing more (the fetch refuses an aborted signal).
 */
export function untilCancelled<T>(request: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
  if (signal === undefined) return request;
  let onAbort = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(new RequestAborted("cancelled", timeoutMs));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // The race handles a later rejection of the request left behind.
  return Promise.race([request, cancelled]).finally(() => signal.removeEventListener("abort", onAbort));
}
