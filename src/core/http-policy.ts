/**
 * The one network policy. GitHub's API goes through Octokit, whose `fetch` (github/http.ts) is built from the pieces
 * here; every other host (Jira, the CI log storage) through {@link httpClient}, ofetch configured once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createFetch, FetchError } from "ofetch";
import pkg from "../../package.json" with { type: "json" };
import { type ToolError, toolError } from "./errors.ts";
import type { Logger } from "./log.ts";
import { clip, scrubControl, scrubSecrets } from "./plain-text.ts";

/** Bodies beyond this are refused: no answer these tools ask for comes near it. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The signal one attempt runs under: the caller's cancellation, or the per-attempt deadline. */
export function attemptSignal(callSignal: AbortSignal | undefined, timeoutMs: number) {
  const deadline = AbortSignal.timeout(timeoutMs);
  return { signal: callSignal ? AbortSignal.any([callSignal, deadline]) : deadline, deadline };
}

/** Decoded here, not by `fetch`: the runtime may inflate a small body whole (0.26 MB gzip → 270 MB) before the cap. */
export const ACCEPT_ENCODING = "gzip, deflate";

export const RAW_BODY = { decompress: false } as RequestInit;

/** `Content-Encoding` → Bun's `DecompressionStream` format; a `Map`, so `__proto__` is no inherited property. */
const DECODERS = new Map(
  Object.entries({ gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" }),
);

/** `body` with its `Content-Encoding` undone, as a stream; `null` for an encoding not known here. */
function decoded(body: ReadableStream<Uint8Array>, encoding: string | null): ReadableStream<Uint8Array> | null {
  // Listed in the order applied, so undone from the last.
  const codings = (encoding ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "" && name !== "identity");
  if (codings.length > 4) return null;
  let stream = body;
  for (const name of codings.reverse()) {
    const format = DECODERS.get(name);
    if (format === undefined) return null;
    const decoder = new DecompressionStream(format as ConstructorParameters<typeof DecompressionStream>[0]);
    stream = stream.pipeThrough(decoder as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  }
  return stream;
}

/** `response` with its body decoded as it streams; a body in an encoding not known here is left out. */
export function decodedResponse(response: Response): Response {
  const body = response.body === null ? null : decoded(response.body, response.headers.get("content-encoding"));
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  return new Response(body, { status: response.status, headers });
}

/**
 * A response's body as text, up to `maxBytes` counted as they are inflated; then it is cancelled. `shared`:
 * a budget other bodies draw on too, taken from chunk by chunk, so bodies read at once cannot all overrun it.
 */
export async function readCapped(response: Response, maxBytes: number, shared?: { left: number }) {
  const encoding = response.headers.get("content-encoding");
  const body = response.body === null ? null : decoded(response.body, encoding);
  if (body === null && response.body !== null) {
    await response.body.cancel().catch(() => {});
    return {
      kind: "failed",
      cause: new Error(`unsupported Content-Encoding ${clip(scrubControl(encoding ?? ""), 40)}`),
    } as const;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of body ?? []) {
      total += chunk.byteLength;
      if (shared !== undefined) shared.left -= chunk.byteLength;
      // Leaving the loop cancels the stream, and with it the decoder and the connection.
      if (total > maxBytes || (shared?.left ?? 0) < 0) return { kind: "too-large" } as const;
      chunks.push(chunk);
    }
  } catch (error) {
    return { kind: "failed", cause: error as unknown } as const;
  }
  return { kind: "ok", text: new TextDecoder().decode(Buffer.concat(chunks)) } as const;
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds; `null` when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const trimmed = value?.trim() ?? "";
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

export const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> => sleep(ms, undefined, { signal });

/** Whether a URL the server handed back stays on the origin (else the token would go with it). */
export function isSameOrigin(url: string, base: string): boolean {
  const origin = URL.parse(base)?.origin;
  return origin !== undefined && URL.parse(url, base)?.origin === origin;
}

/** What Jira and blob storage document as "try again": rate limited, or a gateway briefly without a backend. */
const RETRY_STATUSES = [429, 502, 503, 504];
const ATTEMPTS = 3;
const BACKOFF_BASE_MS = 500;

export interface HttpSettings {
  /** The context's `fetch`: tests point it at their fakes. */
  fetch: typeof fetch;
  log: Logger;
  now: () => Date;
  timeoutMs: number;
  /** The service as logs name it ("Jira"); the host when absent. */
  name?: string;
  /** For `Authorization` and the like: sent to `origin` only, so never after a redirect elsewhere. */
  headers?: Record<string, string>;
  origin?: string;
  /** Tests inject one (it must reject when `signal` aborts) so that retries cost no wall-clock time. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A longer `Retry-After` ends the retries instead. */
  maxRetryWaitMs?: number;
}

export interface HttpRequest {
  method?: "GET" | "POST";
  query?: Readonly<Record<string, string>>;
  body?: unknown;
  signal: AbortSignal;
  /** `follow` only where nothing secret is sent; with credentials a redirect is the caller's to report. */
  redirect?: "manual" | "follow";
}

export type Sent =
  | {
      kind: "response";
      /** Still encoded and unread: the body is read under the last attempt's deadline (see {@link readCapped}). */
      response: Response;
      /** Restarts that deadline: a long body read chunk by chunk waits at most the timeout for each. */
      refresh: () => void;
      /** Why reading the body stopped, if the caller or the deadline did it. */
      stopped: () => "cancelled" | "timeout" | null;
    }
  | { kind: "cancelled" | "timeout" | "failed"; cause?: unknown };

/**
 * The client for every host but GitHub's API (which Octokit serves): ofetch with the shared policy. Each attempt
 * under its own deadline and the caller's cancellation; 429/502/503/504 retried up to three attempts in all, after
 * `Retry-After` or a backoff doubling from 500 ms; bodies raw (see {@link ACCEPT_ENCODING}); redirects not followed
 * unless asked. Never throws.
 */
export function httpClient(settings: HttpSettings) {
  const { log, now, timeoutMs, sleep = abortableSleep, maxRetryWaitMs = 10_000 } = settings;
  const $fetch = createFetch({ fetch: settings.fetch }).create({
    headers: { "accept-encoding": ACCEPT_ENCODING, "user-agent": `twig-mcp/${pkg.version}` },
    // ofetch's own wait is an uncancellable timer: the wait is in `onResponseError` instead.
    retryStatusCodes: RETRY_STATUSES,
    retryDelay: 0,
    responseType: "stream",
    ...RAW_BODY,
  });

  return async function send(url: string, request: HttpRequest): Promise<Sent> {
    const { signal } = request;
    if (signal.aborted) return { kind: "cancelled" };
    const target = URL.parse(url);
    // A redirect followed by the runtime could carry them elsewhere: credentials only where none is followed.
    const trusted =
      target?.origin === settings.origin && settings.origin !== undefined && request.redirect !== "follow";
    const endpoint = `${request.method ?? "GET"} ${target?.pathname ?? "(unparseable URL)"}`;
    const name = settings.name ?? hostOf(url);
    let attempt = 0;
    let deadline = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = () => (signal.aborted ? "cancelled" : deadline.signal.aborted ? "timeout" : null);
    const refresh = () => void timer?.refresh();
    try {
      const response = await $fetch.raw(url, {
        method: request.method ?? "GET",
        query: request.query,
        body: request.body as Record<string, unknown> | undefined,
        headers: trusted ? settings.headers : undefined,
        redirect: request.redirect ?? "manual",
        retry: ATTEMPTS - 1,
        onRequest: ({ options }) => {
          clearTimeout(timer);
          deadline = new AbortController();
          timer = setTimeout(() => deadline.abort(), timeoutMs).unref();
          options.signal = AbortSignal.any([signal, deadline.signal]);
          attempt++;
        },
        onResponse: ({ response }) => log.debug(`${name} ${endpoint} → HTTP ${response.status} (attempt ${attempt})`),
        onResponseError: async ({ response, options }) => {
          if (!options.retry || !RETRY_STATUSES.includes(response.status)) return;
          const wait =
            parseRetryAfter(response.headers.get("retry-after"), now()) ?? BACKOFF_BASE_MS * 2 ** (attempt - 1);
          if (wait > maxRetryWaitMs) {
            options.retry = false;
            return;
          }
          log.info(`${name} answered HTTP ${response.status}; retrying ${endpoint} in ${wait} ms`);
          await response.body?.cancel().catch(() => {});
          await sleep(wait, signal);
        },
      });
      return { kind: "response", response, refresh, stopped };
    } catch (error) {
      // A status that is not retried (any more) arrives as ofetch's error, with its response.
      const answered = error instanceof FetchError ? error.response : undefined;
      if (answered !== undefined && !signal.aborted) return { kind: "response", response: answered, refresh, stopped };
      clearTimeout(timer);
      return { kind: stopped() ?? "failed", cause: error };
    }
  };
}

/** Error codes by kind, in Bun's and Node's spelling. */
const KINDS = [
  ["dns", /^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_NODATA|EAI_FAIL|DNSException)$/, "DNS lookup failed"],
  ["refused", /^(ECONNREFUSED|ConnectionRefused)$/, "connection refused"],
  ["reset", /^(ECONNRESET|ConnectionClosed|EPIPE)$/, "connection closed early"],
  ["tls", /CERT|SSL|TLS/i, "TLS failure"],
] as const;

/** What went wrong below HTTP, from a `fetch` error's innermost cause; `detail` holds no URL or header. */
export function transportFailure(error: unknown) {
  let cause = error as { cause?: unknown; code?: unknown; message?: unknown } | null;
  for (let hops = 0; hops < 5 && cause?.cause != null; hops++) cause = cause.cause as typeof cause;
  const code = typeof cause?.code === "string" ? cause.code : null;
  const known = code === null ? undefined : KINDS.find(([, codes]) => codes.test(code));
  if (known) return { kind: known[0], code, detail: `${known[2]} (${code})` } as const;
  const short = clip(scrubControl(typeof cause?.message === "string" ? cause.message : ""), 200);
  const detail = code !== null && !short.includes(code) ? `${code}: ${short}` : short;
  return { kind: "other", code, detail: detail || "connection failed" } as const;
}

export function hostOf(url: string, fallback = url): string {
  return URL.parse(url)?.host ?? fallback;
}

/** An error value with every known secret removed from its message and hint: the last line of defence. */
export function scrubToolError(error: ToolError, secrets: readonly string[]): ToolError {
  const hint = error.hint === undefined ? undefined : scrubSecrets(error.hint, secrets);
  return toolError(error.code, scrubSecrets(error.message, secrets), hint, error.kind);
}
