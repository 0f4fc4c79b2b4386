import { abortableSleep, transportFailure } from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";
import { RequestAborted, ResponseRefused } from "./http.ts";
import type { GitHubSettings } from "./settings.ts";

/** What Octokit passes a `request` wrap hook, as far as this module reads it. */
export interface HookOptions {
  method?: string;
  url?: string;
  request?: { signal?: AbortSignal | null | undefined };
}

/** Client errors never improve on retry; 403 and 429 are retried only as rate limits. */
const NOT_RETRIED = new Set([400, 401, 403, 404, 410, 422, 429, 451]);

/** What GitHub's documentation says to wait when a secondary limit comes without `Retry-After`. */
const SECONDARY_LIMIT_FALLBACK_SECONDS = 60;

/**
 * Requests in flight per client. One tool call fans out to a few requests, but every page of a
 * long list is fetched in parallel and calls arrive concurrently; GitHub answers bursts with
 * secondary rate limits.
 */
export const MAX_IN_FLIGHT = 10;

export interface ResilienceOptions {
  settings: Pick<
    GitHubSettings,
    "timeoutMs" | "retries" | "retryDelayMs" | "maxRateLimitWaitSeconds" | "rateLimitSecondMs"
  >;
  log: Logger;
  maxInFlight?: number;
  /** Milliseconds since the epoch, for `x-ratelimit-reset`. */
  now?: () => number;
}

/**
 * An Octokit `request` wrap hook (`octokit.hook.wrap("request", …)`): 5xx answers and failed
 * connections are retried `retries` times after n² × `retryDelayMs`; a rate limit is waited out
 * once, when GitHub asks for at most `maxRateLimitWaitSeconds`; anything else — client errors,
 * timeouts, cancellation — is thrown at once. A request that needs no retry and finds a free slot
 * sets no timer.
 */
export function resilientRequest(options: ResilienceOptions) {
  const { settings, log } = options;
  const now = options.now ?? Date.now;
  const slots = new Slots(options.maxInFlight ?? MAX_IN_FLIGHT);
  const cancelled = () => new RequestAborted("cancelled", settings.timeoutMs);

  return async function send<O extends HookOptions, R>(request: (options: O) => R | Promise<R>, hook: O): Promise<R> {
    const signal = hook.request?.signal ?? undefined;
    let failures = 0;
    let waitedOutLimit = false;
    for (;;) {
      const queued = slots.take(signal, cancelled);
      if (queued) await queued;
      let error: unknown;
      try {
        return await request(hook);
      } catch (thrown) {
        error = thrown;
      } finally {
        slots.give();
      }

      const failure = httpFailure(error);
      if (!failure) throw error;
      let waitMs: number;
      const limit = failure.status === 403 || failure.status === 429 ? rateLimit(failure, now()) : null;
      if (limit) {
        const wanted = !waitedOutLimit && limit.seconds <= settings.maxRateLimitWaitSeconds;
        log.warn(
          `GitHub ${limit.kind} rate limit on ${hook.method ?? "GET"} ${hook.url ?? ""}: ` +
            (wanted ? `retrying once in ${limit.seconds} s` : `not retrying (GitHub asks for ${limit.seconds} s)`),
        );
        if (!wanted) throw error;
        waitedOutLimit = true;
        waitMs = limit.seconds * settings.rateLimitSecondMs;
      } else {
        if (failure.status < 400 || NOT_RETRIED.has(failure.status) || failures >= settings.retries) throw error;
        failures++;
        waitMs = failures ** 2 * settings.retryDelayMs;
      }
      if (waitMs > 0) await pause(waitMs, signal);
      if (signal?.aborted) throw cancelled();
    }
  };
}

interface HttpFailure {
  status: number;
  message: string;
  headers: Record<string, unknown>;
}

/**
 * The status of an Octokit `RequestError`. Octokit reports a failed connection as one with status
 * 500; an aborted request (our timeout or the caller's cancellation) is thrown as it is, without
 * `request`, and so is never retried.
 */
function httpFailure(error: unknown): HttpFailure | null {
  if (typeof error !== "object" || error === null) return null;
  const e = error as { status?: unknown; request?: unknown; message?: unknown; response?: { headers?: unknown } };
  if (e.request === undefined || typeof e.status !== "number") return null;
  // A refused body or redirect would be refused again; an unknown host stays unknown.
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof ResponseRefused) return null;
  if (cause !== undefined && transportFailure(cause).code === "ENOTFOUND") return null;
  const headers = e.response?.headers;
  return {
    status: e.status,
    message: typeof e.message === "string" ? e.message : "",
    headers: typeof headers === "object" && headers !== null ? (headers as Record<string, unknown>) : {},
  };
}

/**
 * How long GitHub asks to wait, as `@octokit/plugin-throttling` reads it: a secondary limit is
 * recognised by its message (`Retry-After` alone is not enough), a primary one by
 * `x-ratelimit-remaining: 0`, waited until a second after `x-ratelimit-reset`.
 */
function rateLimit(failure: HttpFailure, nowMs: number): { kind: "primary" | "secondary"; seconds: number } | null {
  if (/\bsecondary rate\b/i.test(failure.message)) {
    const seconds = Number(failure.headers["retry-after"]) || SECONDARY_LIMIT_FALLBACK_SECONDS;
    return { kind: "secondary", seconds };
  }
  if (String(failure.headers["x-ratelimit-remaining"]) === "0") {
    const resetMs = Math.trunc(Number(failure.headers["x-ratelimit-reset"]) || 0) * 1000;
    return { kind: "primary", seconds: Math.max(Math.ceil((resetMs - nowMs) / 1000) + 1, 0) };
  }
  return null;
}

/** Resolves after `ms`, or as soon as `signal` aborts (the caller then throws `cancelled`). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortableSleep(ms, signal ?? new AbortController().signal).catch(() => {});
}

/** A counting semaphore whose free path is synchronous, so an uncontended request never yields. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  /** `null` when a slot was free and is now taken; otherwise resolves once one is handed over. */
  take(signal: AbortSignal | undefined, cancelled: () => Error): Promise<void> | null {
    if (this.#free > 0) {
      this.#free--;
      return null;
    }
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(handOver);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(cancelled());
      };
      const handOver = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#waiting.push(handOver);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
