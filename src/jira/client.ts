import { createFetch, type FetchError } from "ofetch";
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import type { Context } from "../core/context.ts";
import { type ToolError, toolError } from "../core/errors.ts";
import {
  ACCEPT_ENCODING,
  abortableSleep,
  attemptSignal,
  formatBytes,
  hostOf,
  httpTimeoutMs,
  MAX_RESPONSE_BYTES,
  parseRetryAfter,
  RAW_BODY,
  readCapped,
  scrubToolError,
  transportFailure,
} from "../core/http-policy.ts";
import { clip } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  authorizationHeader,
  credentialIdentity,
  type ResolvedJiraCredential,
  resolveJiraCredential,
} from "../creds/credentials-jira.ts";
import { describeIssues } from "../twig/schemas.ts";
import { httpStatusError, type RequestPurpose } from "./errors.ts";
import { checkJiraHost, isAtlassianCloudHost, JIRA_HOST_FORM, type JiraBase, normalizeHost } from "./host.ts";

/** Jira Cloud (REST v3, ADF descriptions, enhanced search) or Server/Data Center (REST v2). */
export type Deployment = "cloud" | "server";

/** Tunables; tests inject `sleep` so retries cost no wall-clock time. */
export interface JiraClientOptions {
  /** Waits before a retry; must reject (or resolve early) when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Longest wait honoured between attempts; a longer `Retry-After` ends the retries. Default 10 s. */
  maxRetryWaitMs?: number;
  /** Bodies larger than this are refused. Default 16 MiB. */
  maxResponseBytes?: number;
}

/** Attempts per request including the first (429/503 are retried). */
const MAX_ATTEMPTS = 3;
/** First backoff delay when the server gives no `Retry-After`; doubles per attempt. */
const BACKOFF_BASE_MS = 500;

export interface JiraSetup {
  base: JiraBase;
  auth: ResolvedJiraCredential;
  /** What was dropped from a pasted `$JIRA_HOST`, if anything. */
  note: string | null;
}

/**
 * `$JIRA_HOST` and the credentials for it, resolved afresh on every call (cheap: the `.netrc`
 * parse is cached by file identity) so that fixing either takes effect without a restart.
 * Unset is `credentials_missing` (twig's message); set but unusable is `invalid_config`.
 */
export async function resolveJiraSetup(ctx: Pick<Context, "env" | "home" | "files">): Promise<Result<JiraSetup>> {
  const host = ctx.env.JIRA_HOST;
  if (host === undefined || host === "") {
    return err(
      toolError(
        "credentials_missing",
        "Jira host environment variable 'JIRA_HOST' not set",
        `${JIRA_HOST_FORM} Then add credentials to ~/.netrc (\`twig creds\`) or set JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PERSONAL_TOKEN (Data Center).`,
      ),
    );
  }
  const checked = checkJiraHost(host);
  if (!checked.ok) return checked;
  const { base, note } = checked.value;
  const auth = await resolveJiraCredential(ctx, normalizeHost(base.baseUrl));
  return auth.ok ? ok({ base, auth: auth.value, note }) : auth;
}

const NO_OPTIONS: JiraClientOptions = Object.freeze({});

/**
 * The process's Jira client for the current configuration: kept while the base URL, credential identity
 * (a hash) and options stay the same, never for a failure. Deployments are remembered across clients.
 */
export class JiraClients {
  readonly #deployments: DeploymentCache = new Map();
  #current: { key: string; options: JiraClientOptions; client: JiraClient } | null = null;

  async get(ctx: Context, options: JiraClientOptions = NO_OPTIONS): Promise<Result<JiraClient>> {
    const setup = await resolveJiraSetup(ctx);
    if (!setup.ok) return setup;
    const key = `${setup.value.base.baseUrl}\u0000${credentialIdentity(setup.value.auth.credential)}`;
    if (this.#current?.key === key && this.#current.options === options) return ok(this.#current.client);
    const client = new JiraClient(ctx, setup.value, options, this.#deployments);
    this.#current = { key, options, client };
    if (setup.value.note !== null) ctx.log.info(setup.value.note);
    ctx.log.info(`Jira ${setup.value.base.display}: using credentials from ${setup.value.auth.source}`);
    return ok(client);
  }
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

type Decoded<S extends v.GenericSchema> = Result<v.InferOutput<S>>;

export type DeploymentCache = Map<string, Promise<Result<Deployment>>>;

const ServerInfoSchema = v.object({ deploymentType: v.optional(v.string()) });

export class JiraClient {
  readonly #ctx: Context;
  readonly #setup: JiraSetup;
  readonly #options: JiraClientOptions;
  readonly #fetch: ReturnType<typeof createFetch>;
  readonly #secrets: readonly string[];
  readonly #deployments: DeploymentCache;

  constructor(ctx: Context, setup: JiraSetup, options: JiraClientOptions, deployments: DeploymentCache) {
    this.#ctx = ctx;
    this.#deployments = deployments;
    this.#setup = setup;
    this.#options = options;
    const authorization = authorizationHeader(setup.auth.credential);
    this.#fetch = createFetch({
      fetch: ctx.fetch,
      defaults: {
        // ofetch joins paths and query parameters, serialises JSON bodies and retries 429/503
        // (see #request for the wait). Its timeout stays off: it is skipped whenever a signal is
        // passed, which every request has; each attempt gets its own deadline instead.
        baseURL: setup.base.apiRoot,
        headers: {
          Accept: "application/json",
          "Accept-Encoding": ACCEPT_ENCODING,
          Authorization: authorization,
          "User-Agent": `twig-mcp/${pkg.version}`,
        },
        ...RAW_BODY,
        retryStatusCodes: [429, 503],
        retryDelay: 0,
        // Read as a stream so the size cap holds whatever the server sends.
        responseType: "stream",
        // A redirect is reported, not followed: following it would send the credentials elsewhere.
        redirect: "manual",
      },
    });
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
    const cache = this.#deployments;
    const key = this.#setup.base.baseUrl;
    let pending = cache.get(key);
    if (pending === undefined) {
      const path = "/rest/api/2/serverInfo";
      // Not tied to one caller's cancellation: other callers may be waiting for the same answer.
      pending = this.request({ method: "GET", path, schema: ServerInfoSchema }, new AbortController().signal)
        .catch((error: unknown) => err(toolError("internal", `Jira deployment detection failed: ${String(error)}`)))
        .then((info) => {
          if (!info.ok) {
            cache.delete(key);
            return info;
          }
          const type = info.value.deploymentType;
          const deployment: Deployment = type?.toLowerCase() === "cloud" ? "cloud" : "server";
          this.#ctx.log.debug(`Jira at ${this.site} is ${deployment} (deploymentType ${type ?? "absent"})`);
          return ok(deployment);
        });
      cache.set(key, pending);
    }
    // A cancelled caller stops waiting (the listener goes with its signal); the detection goes on.
    const stopped = new Promise<Result<never>>((resolve) => {
      const stop = () => resolve(err(cancelled("GET /rest/api/2/serverInfo")));
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
    return Promise.race([pending, stopped]);
  }

  /**
   * One JSON request with timeout, cancellation and bounded retries on 429/503 (honouring `Retry-After`
   * up to `maxRetryWaitMs`). Every failure is a tool error value; nothing throws. Error texts quote Jira,
   * and a misconfigured proxy or server may echo the credentials, so every error is scrubbed of them.
   */
  async request<S extends v.GenericSchema>(spec: RequestSpec<S>, signal: AbortSignal): Promise<Decoded<S>> {
    const result = await this.#request(spec, signal);
    return result.ok ? result : err(scrubToolError(result.error, this.#secrets));
  }

  async #request<S extends v.GenericSchema>(spec: RequestSpec<S>, signal: AbortSignal): Promise<Decoded<S>> {
    const endpoint = `${spec.method} ${spec.path}`;
    const { log, now } = this.#ctx;
    const { sleep = abortableSleep, maxRetryWaitMs = 10_000, maxResponseBytes = MAX_RESPONSE_BYTES } = this.#options;
    const timeoutMs = httpTimeoutMs(this.#ctx.env, log);
    if (signal.aborted) return err(cancelled(endpoint));
    let attempt = 0;
    let started = 0;
    let deadline: AbortSignal | undefined;
    const failed = (cause: unknown): Result<never> => {
      if (signal.aborted) return err(cancelled(endpoint));
      if (!deadline?.aborted) return transportError(cause, endpoint, this.site);
      log.debug(`Jira ${endpoint} timed out after ${Math.round(performance.now() - started)} ms`);
      return networkError(
        `Jira at ${this.site} did not answer ${endpoint} within ${timeoutMs} ms`,
        "Check the network or VPN; TWIG_MCP_HTTP_TIMEOUT_MS raises the timeout.",
      );
    };

    let response: Response;
    try {
      response = await this.#fetch.raw(spec.path, {
        method: spec.method,
        query: spec.query,
        body: spec.body as Record<string, unknown> | undefined,
        retry: MAX_ATTEMPTS - 1,
        onRequest: ({ options }) => {
          ({ signal: options.signal, deadline } = attemptSignal(signal, timeoutMs));
          attempt++;
          started = performance.now();
        },
        onResponse: ({ response }) => {
          const elapsed = Math.round(performance.now() - started);
          log.debug(`Jira ${endpoint} → HTTP ${response.status} in ${elapsed} ms (attempt ${attempt})`);
        },
        // The wait before a retry happens here rather than in ofetch (whose retryDelay is an
        // uncancellable timer): it honours Retry-After, goes through the injected sleep, ends with
        // the caller's cancellation, and a wait beyond maxRetryWaitMs ends the retries instead.
        onResponseError: async ({ response, options }) => {
          if (!options.retry || (response.status !== 429 && response.status !== 503)) return;
          const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), now());
          const wait = retryAfterMs ?? BACKOFF_BASE_MS * 2 ** (attempt - 1);
          if (wait > maxRetryWaitMs) {
            options.retry = false;
            return;
          }
          log.info(`Jira answered HTTP ${response.status}; retrying ${endpoint} in ${wait} ms`);
          response.body?.cancel().catch(() => {});
          await sleep(wait, signal);
        },
      });
    } catch (error) {
      // An HTTP error status that is not retried (any more) arrives as ofetch's FetchError.
      const answered = (error as FetchError | undefined)?.response;
      if (answered === undefined || signal.aborted) return failed(error);
      response = answered;
    }

    const read = await readCapped(response, maxResponseBytes);
    if (read.kind === "failed") return failed(read.cause);
    if (read.kind === "too-large") {
      const limit = formatBytes(maxResponseBytes);
      return networkError(`Jira at ${this.site} sent more than ${limit} for ${endpoint}; the rest was not read`);
    }
    const { status, headers } = response;
    if (status >= 300 && status < 400) {
      // Shown without its query, which may carry a token; an unreadable Location is not shown.
      const location = headers.get("location");
      const url = location === null ? null : URL.parse(location, `${this.#setup.base.apiRoot}/`);
      const target = url === null ? "elsewhere" : `${url.protocol}//${url.host}${url.pathname}`;
      return networkError(
        `Jira at ${this.site} redirected ${endpoint} to ${clip(target, 200)} (HTTP ${status}); redirects are not followed`,
        "Set JIRA_HOST to the address Jira redirects to (often https:// instead of http://, or a different host).",
      );
    }
    if (status < 200 || status >= 300) {
      const retryAfterMs = parseRetryAfter(headers.get("retry-after"), now());
      const failure = { site: this.site, credentialSource: this.#setup.auth.source, secrets: this.#secrets };
      const purpose = { method: spec.method, path: spec.path, ...spec.purpose };
      return err(
        httpStatusError(status, purpose, parseJson(read.text), failure, {
          ...(retryAfterMs === null ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
          loginReason: headers.get("x-seraph-loginreason"),
        }),
      );
    }
    return this.#decode(read.text, headers.get("content-type"), spec.schema, endpoint);
  }

  #decode<S extends v.GenericSchema>(text: string, type: string | null, schema: S, endpoint: string): Decoded<S> {
    const json = parseJson(text);
    if (json === undefined && (/html/i.test(type ?? "") || /^\s*</.test(text))) {
      return networkError(
        `Jira at ${this.site} returned an HTML page instead of JSON for ${endpoint}`,
        "Check that JIRA_HOST is the Jira site itself and that no sign-in proxy sits in front of it.",
      );
    }
    if (json === undefined) {
      const why = text.length === 0 ? "empty body" : "cut short or not JSON";
      return networkError(`Jira at ${this.site} returned malformed JSON for ${endpoint} (${why})`);
    }
    const parsed = v.safeParse(schema, json);
    if (parsed.success) return ok(parsed.output);
    const issues = describeIssues(parsed.issues);
    return networkError(`Jira at ${this.site} returned an unexpected response for ${endpoint}: ${issues}`);
  }
}

function cancelled(endpoint: string): ToolError {
  return toolError("network_error", `Jira request ${endpoint} was cancelled`);
}

function networkError(message: string, hint?: string): Result<never> {
  return err(toolError("network_error", message, hint));
}

function transportError(error: unknown, endpoint: string, site: string): Result<never> {
  const failure = transportFailure(error);
  if (failure.kind === "dns") {
    return networkError(
      `Could not reach Jira: the name ${hostOf(site)} did not resolve (${failure.code}) for ${endpoint}`,
      "Check JIRA_HOST for a typo, and the network connection (VPN, proxy).",
    );
  }
  return networkError(
    `Could not reach Jira at ${site} (${endpoint}): ${failure.detail}`,
    "Check JIRA_HOST and the network connection (VPN, proxy).",
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
