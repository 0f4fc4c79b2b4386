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
import type { EtagCache } from "./etag-cache.ts";

/**
 * Why a request stopped before GitHub answered. Named `AbortError` on purpose: Octokit passes such
 * errors through untouched instead of wrapping them as a retryable HTTP 500, so a timeout is not
 * retried behind the caller's back and a cancelled MCP request stops at once.
 */
export class RequestAborted extends Error {
  override readonly name = "AbortError";
  constructor(
    readonly reason: "timeout" | "cancelled",
    readonly timeoutMs: number,
  ) {
    super(reason === "timeout" ? `request timed out after ${timeoutMs} ms` : "request cancelled");
  }
}

/**
 * A response the policy will not hand on: a body past the size cap, or a redirect that leaves the
 * API's origin (following it would carry the token there). Never retried: named `AbortError`, as
 * {@link RequestAborted}, so Octokit and its retry plugin pass it through untouched.
 */
export class ResponseRefused extends Error {
  override readonly name = "AbortError";
  constructor(
    readonly reason: "too-large" | "cross-origin-redirect",
    message: string,
  ) {
    super(message);
  }
}

/** A host name that did not resolve; `cause` is the transport's error. Never retried (see ResponseRefused). */
export class HostNotFound extends Error {
  override readonly name = "AbortError";
  constructor(cause: unknown) {
    super("host name did not resolve", { cause });
  }
}

/** Same-origin redirects GitHub uses for renamed repositories; more than this is a loop. */
const MAX_REDIRECTS = 3;

/** Headers replayed with a cached body; everything else comes from the fresh 304. */
const CACHED_HEADERS = ["content-type", "link", "etag", "last-modified"];
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` Octokit uses: a per-attempt timeout joined with the MCP request's cancellation, the
 * whole body read under that deadline, and conditional GETs whose 304 turns back into the cached 200.
 * `tokenId` tells tokens apart in cache keys without keeping the token itself there.
 */
export function createGitHubFetch(options: {
  fetch: typeof fetch;
  timeoutMs: number;
  etags: EtagCache;
  tokenId: string;
  log: Logger;
}): typeof fetch {
  const { fetch: send, timeoutMs, etags, tokenId, log } = options;
  const githubFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? "GET").toUpperCase();
    const callSignal = init.signal ?? undefined;
    if (callSignal?.aborted) throw new RequestAborted("cancelled", timeoutMs);
    const { signal, deadline } = attemptSignal(callSignal, timeoutMs);

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
        if (response.status < 300 || response.status >= 400 || response.status === 304 || location === null) break;
        await response.body?.cancel().catch(() => {});
        const next = new URL(location, url).href;
        const sameOrigin = isSameOrigin(next, url);
        if (!sameOrigin || redirects >= MAX_REDIRECTS || method !== "GET") {
          const where = sameOrigin ? "a further address" : new URL(next).origin;
          throw new ResponseRefused(
            "cross-origin-redirect",
            `GitHub redirected ${method} ${safePath(url)} (HTTP ${response.status}) to ${where}; redirects that leave the API's origin are not followed`,
          );
        }
        url = next;
      }
      if (!NULL_BODY_STATUSES.has(response.status)) {
        const read = await readCapped(response, MAX_RESPONSE_BYTES);
        if (read.kind === "failed") throw read.cause;
        if (read.kind === "too-large") {
          throw new ResponseRefused(
            "too-large",
            `GitHub sent more than ${formatBytes(MAX_RESPONSE_BYTES)} for ${method} ${safePath(url)}; the rest was not read`,
          );
        }
        body = read.text;
      }
    } catch (error) {
      if (callSignal?.aborted) throw new RequestAborted("cancelled", timeoutMs);
      if (deadline.aborted) throw new RequestAborted("timeout", timeoutMs);
      if (error instanceof ResponseRefused) throw error;
      const transport = transportFailure(error);
      log.debug(`GitHub ${method} ${hostOf(url, "(unparseable URL)")}: ${transport.detail}`);
      // An unknown host stays unknown: passed through Octokit's retries as an `AbortError`.
      if (transport.kind === "dns") throw new HostNotFound(error);
      throw error;
    }
    const elapsed = Math.round(performance.now() - started);
    const copy = new Headers(response.headers);
    copy.delete("content-encoding");
    copy.delete("content-length");

    if (response.status === 304 && cached && cacheKey) {
      log.debug(`GitHub ${method} ${safePath(url)} -> 304, cached body reused (${elapsed} ms)`);
      for (const [name, value] of cached.headers) copy.set(name, value);
      return new Response(cached.body, { status: 200, statusText: "OK", headers: copy });
    }
    log.debug(`GitHub ${method} ${safePath(url)} -> ${response.status} (${elapsed} ms)`);
    if (cacheKey && response.status === 200 && body !== null) {
      const etag = response.headers.get("etag");
      const kept = CACHED_HEADERS.flatMap((name) => {
        const value = response.headers.get(name);
        return value === null ? [] : [[name, value] as const];
      });
      if (etag) etags.set(cacheKey, { etag, body, headers: kept });
      else etags.delete(cacheKey);
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: copy });
  };
  return githubFetch as typeof fetch;
}

/** Path and query of a URL for logs (an API URL never carries credentials, but be sure). */
function safePath(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.pathname}${parsed.search}` : "(unparseable URL)";
}
