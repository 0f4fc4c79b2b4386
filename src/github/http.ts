import {
  ACCEPT_ENCODING,
  attemptSignal,
  formatBytes,
  hostOf,
  isSameOrigin,
  MAX_RESPONSE_BYTES,
  RAW_BODY,
  readCapped,
  transportFailure,
} from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";

/** Why a request stopped before GitHub's answer; named `AbortError` so Octokit does not retry it as an HTTP 500. */
export class RequestAborted extends Error {
  override readonly name = "AbortError";
  constructor(
    readonly reason: "timeout" | "cancelled" | "too-large" | "cross-origin-redirect" | "dns",
    readonly timeoutMs = 0,
    message = reason === "timeout" ? `request timed out after ${timeoutMs} ms` : "request cancelled",
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A response kept for revalidation: GitHub answers `If-None-Match` with a free 304 when unchanged. */
type CachedResponse = { etag: string; body: string; headers: ReadonlyArray<readonly [string, string | null]> };

/** Bounded LRU of GET responses keyed by token identity + URL (two tokens may see different data). */
export class EtagCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #limits;
  #bytes = 0;

  constructor({ maxEntries = 200, maxBytes = 16 * 1024 * 1024, maxEntryBytes = 2 * 1024 * 1024 } = {}) {
    this.#limits = { maxEntries, maxBytes, maxEntryBytes };
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    // Set again: now the most recently used.
    if (entry) this.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    if (entry.body.length > this.#limits.maxEntryBytes) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#limits.maxEntries && this.#bytes <= this.#limits.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#bytes -= entry.body.length;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * What a paged read may still take in, keyed by the signal all its requests carry (Octokit hands `fetch` only
 * the signal): every page draws on one budget, and a body is cut where the budget ends, not after.
 */
const byteBudgets = new WeakMap<AbortSignal, { left: number }>();

/** `call` for one paged read, on a signal of its own stopping with it: its requests take in at most `bytes` together. */
export function byteBudget<C extends { signal: AbortSignal }>(call: C, bytes: number) {
  const signal = AbortSignal.any([call.signal]);
  const budget = { left: bytes };
  byteBudgets.set(signal, budget);
  return { call: { ...call, signal }, spent: () => budget.left <= 0 };
}

/** Same-origin redirects GitHub uses for renamed repositories; more than this is a loop. */
const MAX_REDIRECTS = 3;

/** Headers replayed with a cached body; everything else comes from the fresh 304. */
const CACHED_HEADERS = ["content-type", "link", "etag", "last-modified"];
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Octokit's `fetch`: bodies read whole within a per-attempt timeout and the call's cancellation; 304 → cached 200. */
export function createGitHubFetch(
  send: typeof fetch,
  { timeoutMs, etags, tokenId, log }: { timeoutMs: number; etags: EtagCache; tokenId: string; log: Logger },
): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? "GET").toUpperCase();
    const callSignal = init.signal ?? undefined;
    if (callSignal?.aborted) throw new RequestAborted("cancelled", timeoutMs);
    // `manual`, asked for by get_ci_log: a redirect and a log body are the caller's, read under its own deadline.
    const passThrough = init.redirect === "manual";
    const { signal, deadline } = passThrough
      ? { signal: callSignal, deadline: undefined }
      : attemptSignal(callSignal, timeoutMs);

    const budget = callSignal === undefined ? undefined : byteBudgets.get(callSignal);
    const headers = new Headers(init.headers);
    const cacheKey = method === "GET" ? `${tokenId} ${url}` : null;
    const cached = cacheKey ? etags.get(cacheKey) : undefined;
    if (cached) headers.set("if-none-match", cached.etag);
    headers.set("accept-encoding", ACCEPT_ENCODING);

    const started = performance.now();
    let response: Response;
    let body: string | null = null;
    try {
      for (let redirects = 0; ; redirects++) {
        // Redirects are followed here, and only within the API's origin, never by fetch itself.
        response = await send(url, { ...init, ...RAW_BODY, headers, signal, redirect: "manual" });
        const location = response.headers.get("location");
        if (passThrough || response.status < 300 || response.status >= 400 || response.status === 304) break;
        if (location === null) break;
        await response.body?.cancel().catch(() => {});
        const next = new URL(location, url).href;
        const sameOrigin = isSameOrigin(next, url);
        if (!sameOrigin || redirects >= MAX_REDIRECTS || method !== "GET") {
          const where = sameOrigin ? "a further address" : new URL(next).origin;
          throw new RequestAborted(
            "cross-origin-redirect",
            timeoutMs,
            `GitHub redirected ${method} ${safePath(url)} (HTTP ${response.status}) to ${where}; redirects that leave the API's origin are not followed`,
          );
        }
        url = next;
      }
      if (passThrough && response.status < 400) {
        log.debug(`GitHub ${method} ${safePath(url)} -> ${response.status}, read by the caller`);
        return response;
      }
      if (!NULL_BODY_STATUSES.has(response.status)) {
        const read = await readCapped(response, MAX_RESPONSE_BYTES, budget);
        if (read.kind === "failed") throw read.cause;
        if (read.kind === "too-large") {
          const spent = budget !== undefined && budget.left < 0;
          const cap = spent
            ? "more than the pages of one read may take in together"
            : `more than ${formatBytes(MAX_RESPONSE_BYTES)}`;
          throw new RequestAborted(
            "too-large",
            timeoutMs,
            `GitHub sent ${cap} for ${method} ${safePath(url)}; the rest was not read`,
          );
        }
        body = read.text;
      }
    } catch (error) {
      if (callSignal?.aborted) throw new RequestAborted("cancelled", timeoutMs);
      if (deadline?.aborted) throw new RequestAborted("timeout", timeoutMs);
      if (error instanceof RequestAborted) throw error;
      const transport = transportFailure(error);
      log.debug(`GitHub ${method} ${hostOf(url, "(unparseable URL)")}: ${transport.detail}`);
      // An unknown host stays unknown: not retried.
      if (transport.kind === "dns")
        throw new RequestAborted("dns", timeoutMs, "host name did not resolve", { cause: error });
      throw error;
    }
    const elapsed = Math.round(performance.now() - started);
    const copy = new Headers(response.headers);
    copy.delete("content-encoding");
    copy.delete("content-length");

    if (response.status === 304 && cached && cacheKey) {
      log.debug(`GitHub ${method} ${safePath(url)} -> 304, cached body reused (${elapsed} ms)`);
      for (const [name, value] of cached.headers) if (value !== null) copy.set(name, value);
      if (budget) budget.left -= cached.body.length;
      return new Response(cached.body, { status: 200, statusText: "OK", headers: copy });
    }
    log.debug(`GitHub ${method} ${safePath(url)} -> ${response.status} (${elapsed} ms)`);
    if (cacheKey && response.status === 200 && body !== null) {
      const etag = response.headers.get("etag");
      const kept = CACHED_HEADERS.map((name) => [name, response.headers.get(name)] as const);
      if (etag) etags.set(cacheKey, { etag, body, headers: kept });
      else etags.delete(cacheKey);
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: copy });
  }) as typeof fetch;
}

/** Path and query of a URL for logs (an API URL never carries credentials, but be sure). */
function safePath(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.pathname}${parsed.search}` : "(unparseable URL)";
}

/** `request`, or a cancellation the moment `signal` aborts: the plugins' retry and rate-limit waits do not stop. */
export function untilCancelled<T>(request: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return request;
  let onAbort = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(new RequestAborted("cancelled"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // The race handles a later rejection of the request left behind.
  return Promise.race([request, cancelled]).finally(() => signal.removeEventListener("abort", onAbort));
}
