import { createFetch } from "ofetch";
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import type { Context } from "../core/context.ts";
import { type ToolError, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  authorizationHeader,
  credentialIdentity,
  type ResolvedJiraCredential,
  resolveJiraCredential,
} from "../creds/credentials-jira.ts";
import { describeIssues } from "../twig/schemas.ts";
import { clip, httpStatusError, type RequestPurpose } from "./errors.ts";
import { ensureUrlScheme, isAtlassianCloudHost, type JiraBase, jiraBase, normalizeHost } from "./host.ts";

/** Jira Cloud (REST v3, ADF descriptions, enhanced search) or Server/Data Center (REST v2). */
export type Deployment = "cloud" | "server";

/** Tunables; tests inject `sleep` so retries cost no wall-clock time. */
export interface JiraClientOptions {
  /** Waits before a retry; must reject (or resolve early) when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Attempts per request including the first (429/503 are retried). Default 3. */
  maxAttempts?: number;
  /** Longest wait honoured between attempts; a longer `Retry-After` ends the retries. Default 10 s. */
  maxRetryWaitMs?: number;
  /** First backoff delay when the server gives no `Retry-After`; doubles per attempt. Default 500 ms. */
  backoffBaseMs?: number;
  /** Bodies larger than this are refused. Default 16 MiB. */
  maxResponseBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 10 * 60_000;
const USER_AGENT = `twig-mcp/${pkg.version}`;

const defaults: Required<JiraClientOptions> = {
  sleep: abortableSleep,
  maxAttempts: 3,
  maxRetryWaitMs: 10_000,
  backoffBaseMs: 500,
  maxResponseBytes: 16 * 1024 * 1024,
};

export interface JiraSetup {
  base: JiraBase;
  auth: ResolvedJiraCredential;
}

const JIRA_HOST_HINT =
  "Set JIRA_HOST to your Jira site (e.g. company.atlassian.net), then add credentials to ~/.netrc (`twig creds`) " +
  "or set JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PERSONAL_TOKEN (Data Center).";

/**
 * `$JIRA_HOST` and the credentials for it, resolved afresh on every call (cheap: the `.netrc`
 * parse is cached by file identity) so that fixing either takes effect without a restart.
 */
export async function resolveJiraSetup(ctx: Pick<Context, "env" | "home" | "files">): Promise<Result<JiraSetup>> {
  const host = ctx.env.JIRA_HOST;
  if (host === undefined || host === "") {
    return err(toolError("credentials_missing", "Jira host environment variable 'JIRA_HOST' not set", JIRA_HOST_HINT));
  }
  const baseUrl = ensureUrlScheme(host);
  if (!baseUrl.ok) {
    return err(
      toolError("credentials_missing", `Invalid JIRA_HOST: ${withoutUserinfo(baseUrl.error)}`, JIRA_HOST_HINT),
    );
  }
  const base = jiraBase(baseUrl.value);
  if (!base.ok) {
    return err(toolError("credentials_missing", `Invalid JIRA_HOST: ${withoutUserinfo(base.error)}`, JIRA_HOST_HINT));
  }
  const auth = await resolveJiraCredential(ctx, normalizeHost(base.value.baseUrl));
  if (!auth.ok) return auth;
  return ok({ base: base.value, auth: auth.value });
}

/** `user:password@` in an echoed `$JIRA_HOST` is not shown. */
function withoutUserinfo(text: string): string {
  return text.replace(/(^|[\s'/])[^\s'/@]+@/g, "$1…@");
}

const CLIENT_MEMO_KEY = "jira:client";
const NO_OPTIONS: JiraClientOptions = Object.freeze({});
const DEPLOYMENT_MEMO_KEY = "jira:deployments";

/**
 * The Jira client for the current configuration. One client is kept per process, keyed by base URL
 * and credential identity (a hash), and replaced when either changes; failures are never cached.
 */
export async function getJiraClient(
  ctx: Context,
  options: JiraClientOptions = NO_OPTIONS,
): Promise<Result<JiraClient>> {
  const setup = await resolveJiraSetup(ctx);
  if (!setup.ok) return setup;
  const key = `${setup.value.base.baseUrl}\u0000${credentialIdentity(setup.value.auth.credential)}`;
  const cached = ctx.memo.get(CLIENT_MEMO_KEY) as
    | { key: string; options: JiraClientOptions; client: JiraClient }
    | undefined;
  if (cached?.key === key && cached.options === options) return ok(cached.client);
  const client = new JiraClient(ctx, setup.value, options);
  ctx.memo.set(CLIENT_MEMO_KEY, { key, options, client });
  ctx.log.info(`Jira ${setup.value.base.display}: using credentials from ${setup.value.auth.source}`);
  return ok(client);
}

export interface RequestSpec<S extends v.GenericSchema> {
  method: "GET" | "POST";
  /** Path below the API root, starting with `/rest/`; already percent-encoded. */
  path: string;
  query?: Readonly<Record<string, string>>;
  body?: unknown;
  /** Shape the 2xx JSON body must have. */
  schema: S;
  purpose?: Omit<RequestPurpose, "method" | "path">;
}

type DeploymentCache = Map<string, Deployment | Promise<Result<Deployment>>>;

const ServerInfoSchema = v.object({ deploymentType: v.optional(v.string()), version: v.optional(v.string()) });

export class JiraClient {
  readonly #ctx: Context;
  readonly #setup: JiraSetup;
  readonly #options: Required<JiraClientOptions>;
  readonly #fetch: ReturnType<typeof createFetch>;
  readonly #headers: Record<string, string>;
  readonly #secrets: readonly string[];

  constructor(ctx: Context, setup: JiraSetup, options: JiraClientOptions = {}) {
    this.#ctx = ctx;
    this.#setup = setup;
    this.#options = { ...defaults, ...options };
    this.#fetch = createFetch({ fetch: ctx.fetch });
    const authorization = authorizationHeader(setup.auth.credential);
    this.#headers = { Accept: "application/json", Authorization: authorization, "User-Agent": USER_AGENT };
    // The token itself, and the header that encodes it (Basic is only base64 of user:token).
    this.#secrets = [setup.auth.credential.token, authorization.slice(authorization.indexOf(" ") + 1)];
  }

  /** The site as it may be shown (no userinfo), e.g. `https://company.atlassian.net`. */
  get site(): string {
    return this.#setup.base.display;
  }

  get credentialSource(): string {
    return this.#setup.auth.source;
  }

  /** The page a person opens for an issue. */
  browseUrl(key: string): string {
    return `${this.#setup.base.apiRoot}/browse/${encodeURIComponent(key)}`;
  }

  /**
   * Cloud or Server/Data Center. `*.atlassian.net` is Cloud without asking; otherwise
   * `GET /rest/api/2/serverInfo` is asked once per base URL (concurrent callers share the
   * request) and the answer remembered; a failed detection is not remembered.
   */
  async deployment(signal: AbortSignal): Promise<Result<Deployment>> {
    if (isAtlassianCloudHost(this.#setup.base.hostname)) return ok("cloud");
    let cache = this.#ctx.memo.get(DEPLOYMENT_MEMO_KEY) as DeploymentCache | undefined;
    if (cache === undefined) {
      cache = new Map();
      this.#ctx.memo.set(DEPLOYMENT_MEMO_KEY, cache);
    }
    const key = this.#setup.base.baseUrl;
    const known = cache.get(key);
    if (typeof known === "string") return ok(known);
    let pending = known;
    if (pending === undefined) {
      const deployments = cache;
      // Not tied to one caller's cancellation: other callers may be waiting for the same answer.
      pending = this.#detect(new AbortController().signal)
        .catch((error: unknown) => err(toolError("internal", `Jira deployment detection failed: ${String(error)}`)))
        .then((result) => {
          if (result.ok) deployments.set(key, result.value);
          else deployments.delete(key);
          return result;
        });
      cache.set(key, pending);
    }
    return raceAbort(pending, signal, () => cancelled("GET /rest/api/2/serverInfo"));
  }

  async #detect(signal: AbortSignal): Promise<Result<Deployment>> {
    const info = await this.request(
      { method: "GET", path: "/rest/api/2/serverInfo", schema: ServerInfoSchema },
      signal,
    );
    if (!info.ok) return info;
    const type = info.value.deploymentType?.toLowerCase();
    const deployment: Deployment = type === "cloud" ? "cloud" : "server";
    this.#ctx.log.debug(
      `Jira at ${this.site} is ${deployment} (deploymentType ${info.value.deploymentType ?? "absent"})`,
    );
    return ok(deployment);
  }

  /**
   * One JSON request with timeout, cancellation and bounded retries on 429/503 (honouring
   * `Retry-After` up to `maxRetryWaitMs`). Every failure is a tool error value; nothing throws.
   * Error texts quote Jira's own messages, and a misconfigured proxy or server may echo the
   * request's credentials in them, so every error is scrubbed of the secrets before it leaves.
   */
  async request<S extends v.GenericSchema>(
    spec: RequestSpec<S>,
    signal: AbortSignal,
  ): Promise<Result<v.InferOutput<S>>> {
    const result = await this.#request(spec, signal);
    return result.ok ? result : err(scrubSecrets(result.error, this.#secrets));
  }

  async #request<S extends v.GenericSchema>(
    spec: RequestSpec<S>,
    signal: AbortSignal,
  ): Promise<Result<v.InferOutput<S>>> {
    const purpose: RequestPurpose = { method: spec.method, path: spec.path, ...spec.purpose };
    const url = this.#url(spec.path, spec.query);
    const timeoutMs = this.#timeoutMs();
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers = body === undefined ? this.#headers : { ...this.#headers, "Content-Type": "application/json" };
    const failure = { site: this.site, credentialSource: this.#setup.auth.source };

    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) return err(cancelled(endpointOf(purpose)));
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = AbortSignal.any([signal, timeout]);
      const started = performance.now();
      const exchanged = await this.#exchange(url, spec.method, headers, body, combined);
      const elapsed = Math.round(performance.now() - started);
      if (!exchanged.ok) {
        if (signal.aborted) return err(cancelled(endpointOf(purpose)));
        if (timeout.aborted) {
          this.#ctx.log.debug(`Jira ${endpointOf(purpose)} timed out after ${elapsed} ms`);
          return err(
            toolError(
              "network_error",
              `Jira at ${this.site} did not answer ${endpointOf(purpose)} within ${timeoutMs} ms`,
              "Check the network or VPN; TWIG_MCP_HTTP_TIMEOUT_MS raises the timeout.",
            ),
          );
        }
        return err(exchanged.error(purpose, this.site));
      }
      const { status, headers: responseHeaders, text } = exchanged.value;
      this.#ctx.log.debug(`Jira ${endpointOf(purpose)} → HTTP ${status} in ${elapsed} ms (attempt ${attempt})`);

      const retryAfterMs = parseRetryAfter(responseHeaders.get("retry-after"), this.#ctx.now());
      if ((status === 429 || status === 503) && attempt < this.#options.maxAttempts) {
        const wait = retryAfterMs ?? this.#options.backoffBaseMs * 2 ** (attempt - 1);
        if (wait <= this.#options.maxRetryWaitMs) {
          this.#ctx.log.info(`Jira answered HTTP ${status}; retrying ${endpointOf(purpose)} in ${wait} ms`);
          try {
            await this.#options.sleep(wait, signal);
          } catch {
            return err(cancelled(endpointOf(purpose)));
          }
          continue;
        }
      }

      if (status >= 300 && status < 400) return err(this.#redirected(status, responseHeaders.get("location"), purpose));
      if (status < 200 || status >= 300) {
        const retryAfterSeconds = retryAfterMs === null ? undefined : Math.ceil(retryAfterMs / 1000);
        return err(
          httpStatusError(status, purpose, parseJson(text), failure, {
            ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
            loginReason: responseHeaders.get("x-seraph-loginreason"),
          }),
        );
      }
      return this.#decode(text, responseHeaders.get("content-type"), spec.schema, purpose);
    }
  }

  #url(path: string, query: Readonly<Record<string, string>> | undefined): string {
    const search = query === undefined ? "" : new URLSearchParams(query).toString();
    return `${this.#setup.base.apiRoot}${path}${search === "" ? "" : `?${search}`}`;
  }

  #timeoutMs(): number {
    const raw = this.#ctx.env.TWIG_MCP_HTTP_TIMEOUT_MS;
    if (raw === undefined || raw.trim() === "") return DEFAULT_TIMEOUT_MS;
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
      this.#ctx.log.warn(
        `Ignoring TWIG_MCP_HTTP_TIMEOUT_MS=${clip(raw, 20)}: expected milliseconds (1..${MAX_TIMEOUT_MS})`,
      );
      return DEFAULT_TIMEOUT_MS;
    }
    return value;
  }

  async #exchange(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<
    | { ok: true; value: { status: number; headers: Headers; text: string } }
    | { ok: false; error: (purpose: RequestPurpose, site: string) => ToolError }
  > {
    let response: Response;
    try {
      response = await this.#fetch.raw(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
        retry: false,
        ignoreResponseError: true,
        responseType: "stream",
        // A redirect is reported, not followed: following it would send the credentials elsewhere.
        redirect: "manual",
      });
    } catch (error) {
      return { ok: false, error: (purpose, site) => transportError(error, purpose, site) };
    }
    const read = await readCapped(response.body, this.#options.maxResponseBytes);
    if (read.kind === "failed") {
      const cause = read.cause;
      return { ok: false, error: (purpose, site) => transportError(cause, purpose, site) };
    }
    if (read.kind === "too-large") {
      const limit = this.#options.maxResponseBytes;
      return {
        ok: false,
        error: (purpose, site) =>
          toolError("network_error", `Jira at ${site} sent more than ${limit} bytes for ${endpointOf(purpose)}`),
      };
    }
    return { ok: true, value: { status: response.status, headers: response.headers, text: read.text } };
  }

  #redirected(status: number, location: string | null, purpose: RequestPurpose): ToolError {
    let target = "elsewhere";
    if (location !== null) {
      try {
        const url = new URL(location, `${this.#setup.base.apiRoot}/`);
        target = `${url.protocol}//${url.host}${url.pathname}`;
      } catch {
        // An unreadable Location is reported without it.
      }
    }
    return toolError(
      "network_error",
      `Jira at ${this.site} redirected ${endpointOf(purpose)} to ${clip(target, 200)} (HTTP ${status}); redirects are not followed`,
      "Set JIRA_HOST to the address Jira redirects to (often https:// instead of http://, or a different host).",
    );
  }

  #decode<S extends v.GenericSchema>(
    text: string,
    contentType: string | null,
    schema: S,
    purpose: RequestPurpose,
  ): Result<v.InferOutput<S>> {
    const json = parseJson(text);
    if (json === undefined) {
      const html = /html/i.test(contentType ?? "") || /^\s*</.test(text);
      return err(
        toolError(
          "network_error",
          html
            ? `Jira at ${this.site} returned an HTML page instead of JSON for ${endpointOf(purpose)}`
            : `Jira at ${this.site} returned malformed JSON for ${endpointOf(purpose)} (${text.length === 0 ? "empty body" : "cut short or not JSON"})`,
          html
            ? "Check that JIRA_HOST is the Jira site itself and that no sign-in proxy sits in front of it."
            : undefined,
        ),
      );
    }
    const parsed = v.safeParse(schema, json);
    if (!parsed.success) {
      return err(
        toolError(
          "network_error",
          `Jira at ${this.site} returned an unexpected response for ${endpointOf(purpose)}: ${describeIssues(parsed.issues)}`,
        ),
      );
    }
    return ok(parsed.output);
  }
}

function endpointOf(purpose: RequestPurpose): string {
  return `${purpose.method} ${purpose.path}`;
}

function cancelled(endpoint: string): ToolError {
  return toolError("network_error", `Jira request ${endpoint} was cancelled`);
}

function transportError(error: unknown, purpose: RequestPurpose, site: string): ToolError {
  const cause = innermost(error);
  const code = typeof (cause as { code?: unknown })?.code === "string" ? (cause as { code: string }).code : null;
  const message = cause instanceof Error ? cause.message : String(cause);
  const detail = clip(code !== null && !message.includes(code) ? `${code}: ${message}` : message, 200);
  return toolError(
    "network_error",
    `Could not reach Jira at ${site} (${endpointOf(purpose)}): ${detail}`,
    "Check JIRA_HOST and the network connection (VPN, proxy).",
  );
}

function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const next = (current as { cause?: unknown })?.cause;
    if (next === undefined || next === null) break;
    current = next;
  }
  return current;
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds; `null` when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}

type CappedRead = { kind: "ok"; text: string } | { kind: "too-large" } | { kind: "failed"; cause: unknown };

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<CappedRead> {
  if (body === null) return { kind: "ok", text: "" };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        return { kind: "too-large" };
      }
      chunks.push(value);
    }
  } catch (error) {
    return { kind: "failed", cause: error };
  }
  return { kind: "ok", text: new TextDecoder().decode(Buffer.concat(chunks)) };
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Waits for `promise`, or gives up with `onAbort()` when `signal` aborts first. */
function raceAbort<T>(promise: Promise<Result<T>>, signal: AbortSignal, onAbort: () => ToolError): Promise<Result<T>> {
  if (signal.aborted) return Promise.resolve(err(onAbort()));
  return new Promise((resolve) => {
    const listener = () => resolve(err(onAbort()));
    signal.addEventListener("abort", listener, { once: true });
    promise.then((result) => {
      signal.removeEventListener("abort", listener);
      resolve(result);
    });
  });
}

/** Replaces each secret (at least 4 characters long) with a marker in an error's message and hint. */
export function scrubSecrets(error: ToolError, secrets: readonly string[]): ToolError {
  const clean = (text: string) => {
    let out = text;
    for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[REDACTED]");
    return out;
  };
  return toolError(error.code, clean(error.message), error.hint === undefined ? undefined : clean(error.hint));
}
