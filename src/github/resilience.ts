import type { Env } from "../core/context.ts";
import { abortableSleep, httpTimeoutMs, transportFailure } from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";
import { type HttpFailure, httpFailure } from "./errors.ts";
import { RequestAborted, ResponseRefused } from "./http.ts";

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

/** Client errors never improve on retry; 403 and 429 are retried only as rate limits. */
const NOT_RETRIED = new Set([400, 401, 403, 404, 410, 422, 429, 451]);

export interface ResilienceOptions {
  settings: ReturnType<typeof githubSettings>;
  log: Logger;
  /**
   * Requests in flight per client (default 100, the concurrency GitHub's secondary rate limits
   * allow): a whole stack's reviews, check runs and statuses go out as one round trip.
   */
  maxInFlight?: number;
  /** Milliseconds since the epoch, for `x-ratelimit-reset`. */
  now?: () => number;
}

/** What Octokit passes a `request` wrap hook, as far as this module reads it. */
type HookOptions = { method?: string; url?: string; request?: { signal?: AbortSignal | null | undefined } };

/**
 * An Octokit `request` wrap hook applying `settings`: anything not retried or waited out there
 * (client errors, timeouts, cancellation) is thrown at once. At most `maxInFlight` requests are sent
 * at a time; one that needs no retry and finds a free slot sets no timer and never yields.
 */
export function resilientRequest({ settings, log, maxInFlight = 100, now = Date.now }: ResilienceOptions) {
  let free = Math.max(1, maxInFlight);
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  const cancelled = () => new RequestAborted("cancelled", settings.timeoutMs);
  const queue = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      const handOver = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = waiting.indexOf(handOver);
        if (at >= 0) waiting.splice(at, 1);
        reject(cancelled());
      };
      waiting.push(handOver);
      signal?.addEventListener("abort", onAbort, { once: true });
    });

  return async function send<O extends HookOptions, R>(request: (options: O) => R | Promise<R>, hook: O): Promise<R> {
    const signal = hook.request?.signal ?? undefined;
    let failures = 0;
    let waitedOutLimit = false;
    /** How long to wait before the next attempt after `error`; throws it when there is none. */
    const waitBeforeRetry = (error: unknown): number => {
      const failure = retryable(error);
      if (!failure) throw error;
      const limit = failure.status === 403 || failure.status === 429 ? rateLimit(failure, now()) : null;
      if (limit) {
        const wanted = !waitedOutLimit && limit.seconds <= settings.maxRateLimitWaitSeconds;
        log.warn(
          `GitHub ${limit.kind} rate limit on ${hook.method ?? "GET"} ${hook.url ?? ""}: ` +
            (wanted ? `retrying once in ${limit.seconds} s` : `not retrying (GitHub asks for ${limit.seconds} s)`),
        );
        if (!wanted) throw error;
        waitedOutLimit = true;
        return limit.seconds * settings.rateLimitSecondMs;
      }
      if (failure.status < 400 || NOT_RETRIED.has(failure.status) || failures >= settings.retries) throw error;
      failures++;
      return failures ** 2 * settings.retryDelayMs;
    };
    for (;;) {
      if (free > 0) free--;
      else if (signal?.aborted) throw cancelled();
      else await queue(signal);
      let waitMs: number;
      try {
        return await request(hook);
      } catch (error) {
        waitMs = waitBeforeRetry(error);
      } finally {
        release();
      }
      // Cancellation ends the wait at once; the check below then throws.
      if (waitMs > 0) await abortableSleep(waitMs, signal ?? new AbortController().signal).catch(() => {});
      if (signal?.aborted) throw cancelled();
    }
  };
}

/**
 * An Octokit `RequestError` worth another attempt. Octokit reports a failed connection as one with
 * status 500; an aborted request (our timeout or the caller's cancellation) is thrown as it is,
 * without `request`, and so is never retried; nor is a refused body or redirect (it would be
 * refused again) or an unknown host (it stays unknown).
 */
function retryable(error: unknown) {
  const failure = httpFailure(error);
  if (failure === null || (error as { request?: unknown }).request === undefined) return null;
  if (failure.cause instanceof ResponseRefused) return null;
  if (failure.cause !== undefined && transportFailure(failure.cause).code === "ENOTFOUND") return null;
  return failure;
}

/**
 * How long GitHub asks to wait, as `@octokit/plugin-throttling` reads it: a secondary limit is
 * recognised by its message (`Retry-After` alone is not enough), a primary one by
 * `x-ratelimit-remaining: 0`, waited until a second after `x-ratelimit-reset`.
 */
function rateLimit({ message, headers }: HttpFailure, nowMs: number) {
  if (/\bsecondary rate\b/i.test(message)) {
    // Without `Retry-After`, GitHub's documentation says to wait a minute.
    return { kind: "secondary", seconds: Number(headers["retry-after"]) || 60 };
  }
  if (String(headers["x-ratelimit-remaining"]) !== "0") return null;
  const resetMs = Math.trunc(Number(headers["x-ratelimit-reset"]) || 0) * 1000;
  return { kind: "primary", seconds: Math.max(Math.ceil((resetMs - nowMs) / 1000) + 1, 0) };
}
