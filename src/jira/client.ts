import { once } from "node:events";
import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { cancelledError, describeIssues, type ErrorCode, type ToolError, toolError } from "../core/errors.ts";
import {
  formatBytes,
  type HttpSettings,
  hostOf,
  httpClient,
  MAX_RESPONSE_BYTES,
  parseRetryAfter,
  readCapped,
  scrubToolError,
  transportFailure,
} from "../core/http-policy.ts";
import { clip, scrubControl, scrubSecrets } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readSettings } from "../core/settings.ts";
import { sha256Hex } from "../core/sha256.ts";
import { type ResolvedJiraCredential, resolveJiraCredential } from "../creds/credentials.ts";
import { checkJiraHost, isAtlassianCloudHost, JIRA_HOST_FORM, type JiraBase, normalizeHost } from "./host.ts";

/** Jira Cloud (REST v3, ADF descriptions, enhanced search) or Server/Data Center (REST v2). */
export type Deployment = "cloud" | "server";

/** Tunables for tests: a recorded `sleep` instead of real retry waits, a smaller body cap. */
export type JiraClientOptions = Pick<HttpSettings, "sleep" | "maxRetryWaitMs"> & { maxResponseBytes?: number };

/** `note`: what was dropped from a pasted `$JIRA_HOST`, if anything. */
type JiraSetup = { base: JiraBase; auth: ResolvedJiraCredential; note: string | null };
type Deployments = Map<string, Promise<Result<Deployment>>>;

/** `$JIRA_HOST` and its credentials, resolved on every call so that fixing either needs no restart. */
export async function resolveJiraSetup(ctx: Pick<Context, "env" | "home" | "files">): Promise<Result<JiraSetup>> {
  const host = ctx.env.JIRA_HOST;
  if (host === undefined || host === "") {
    const hint = `${JIRA_HOST_FORM} Then add credentials to ~/.netrc (\`twig creds\`) or set JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PERSONAL_TOKEN (Data Center).`;
    return err(toolError("credentials_missing", "Jira host environment variable 'JIRA_HOST' not set", hint));
  }
  const checked = checkJiraHost(host);
  if (!checked.ok) return checked;
  const { base, note } = checked.value;
  const auth = await resolveJiraCredential(ctx, normalizeHost(base.baseUrl));
  return auth.ok ? ok({ base, auth: auth.value, note }) : auth;
}

/** The Jira client, kept while base URL, credentials and options stay the same; deployments outlive it. */
export class JiraClients {
  readonly #deployments: Deployments = new Map();
  #current: { key: string; options?: JiraClientOptions; client: JiraClient } | null = null;

  async get(ctx: Context, options?: JiraClientOptions): Promise<Result<JiraClient>> {
    const setup = await resolveJiraSetup(ctx);
    if (!setup.ok) return setup;
    // A hash, so that no secret is kept as a cache key.
    const key = sha256Hex(`${setup.value.base.baseUrl}\u0000${setup.value.auth.authorization}`);
    if (this.#current?.key === key && this.#current.options === options) return ok(this.#current.client);
    const client = jiraClient(ctx, setup.value, options ?? {}, this.#deployments);
    this.#current = { key, options, client };
    if (setup.value.note !== null) ctx.log.info(setup.value.note);
    ctx.log.info(`Jira ${client.site}: using credentials from ${client.credentialSource}`);
    return ok(client);
  }
}

interface RequestSpec<S extends v.GenericSchema> {
  method: "GET" | "POST";
  /** Path below the API root, starting with `/rest/`; already percent-encoded. */
  path: string;
  query?: Readonly<Record<string, string>>;
  body?: unknown;
  schema: S;
  purpose?: RequestPurpose;
}

export type JiraClient = ReturnType<typeof jiraClient>;

const ServerInfoSchema = v.object({ deploymentType: v.optional(v.string()) });

function jiraClient(ctx: Context, { base, auth }: JiraSetup, options: JiraClientOptions, deployments: Deployments) {
  const site = base.apiRoot;
  const { log } = ctx;
  const { maxResponseBytes = MAX_RESPONSE_BYTES } = options;
  // The token itself, and the header that encodes it (Basic is only base64 of user:token).
  const secrets = [auth.token, auth.authorization.slice(auth.authorization.indexOf(" ") + 1)];
  const timeoutMs = readSettings(ctx.env, (message) => log.warn(message)).httpTimeoutMs;
  const http = httpClient({
    ...ctx,
    ...options,
    timeoutMs,
    name: "Jira",
    origin: new URL(site).origin,
    headers: { Accept: "application/json", Authorization: auth.authorization },
  });

  async function send<S extends v.GenericSchema>(spec: RequestSpec<S>, signal: AbortSignal) {
    const endpoint = `${spec.method} ${spec.path}`;
    const sent = await http(`${site}${spec.path}`, { method: spec.method, query: spec.query, body: spec.body, signal });
    const failed = (why: "cancelled" | "timeout" | null, cause: unknown): Result<never> => {
      if (why === "cancelled") return cancelled(endpoint);
      if (why === "timeout") {
        const hint = "Check the network or VPN; TWIG_MCP_HTTP_TIMEOUT_MS raises the timeout.";
        return networkError(`Jira at ${site} did not answer ${endpoint} within ${timeoutMs} ms`, hint);
      }
      const failure = transportFailure(cause);
      const dns = failure.kind === "dns";
      return networkError(
        dns
          ? `Could not reach Jira: the name ${hostOf(site)} did not resolve (${failure.code}) for ${endpoint}`
          : `Could not reach Jira at ${site} (${endpoint}): ${failure.detail}`,
        `Check JIRA_HOST${dns ? " for a typo," : ""} and the network connection (VPN, proxy).`,
      );
    };
    if (sent.kind !== "response") return failed(sent.kind === "failed" ? null : sent.kind, sent.cause);
    const { response } = sent;
    const read = await readCapped(response, maxResponseBytes);
    if (read.kind === "failed") return failed(sent.stopped(), read.cause);
    if (read.kind === "too-large") {
      const limit = formatBytes(maxResponseBytes);
      return networkError(`Jira at ${site} sent more than ${limit} for ${endpoint}; the rest was not read`);
    }
    const { status, headers } = response;
    if (status >= 300 && status < 400) {
      // Shown without its query, which may carry a token; an unreadable Location is not shown.
      const location = headers.get("location");
      const url = location === null ? null : URL.parse(location, `${site}/`);
      const target = url === null ? "elsewhere" : `${url.protocol}//${url.host}${url.pathname}`;
      return networkError(
        `Jira at ${site} redirected ${endpoint} to ${clip(target, 200)} (HTTP ${status}); redirects are not followed`,
        "Set JIRA_HOST to the address Jira redirects to (often https:// instead of http://, or a different host).",
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(read.text);
    } catch {}
    if (status < 200 || status >= 300) {
      const retryAfterMs = parseRetryAfter(headers.get("retry-after"), ctx.now());
      const extra = {
        loginReason: headers.get("x-seraph-loginreason"),
        ...(retryAfterMs === null ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
      };
      const purpose = { method: spec.method, path: spec.path, ...spec.purpose };
      return err(httpStatusError(status, purpose, json, { site, credentialSource: auth.source, secrets }, extra));
    }
    if (json === undefined && (/html/i.test(headers.get("content-type") ?? "") || /^\s*</.test(read.text))) {
      const hint = "Check that JIRA_HOST is the Jira site itself and that no sign-in proxy sits in front of it.";
      return networkError(`Jira at ${site} returned an HTML page instead of JSON for ${endpoint}`, hint);
    }
    if (json === undefined) {
      const why = read.text.length === 0 ? "empty body" : "cut short or not JSON";
      return networkError(`Jira at ${site} returned malformed JSON for ${endpoint} (${why})`);
    }
    const parsed = v.safeParse(spec.schema, json);
    if (parsed.success) return ok(parsed.output);
    const issues = describeIssues(parsed.issues);
    return networkError(`Jira at ${site} returned an unexpected response for ${endpoint}: ${issues}`);
  }

  /** One JSON request (never throws); its errors lose any credential a proxy echoes. */
  const request = <S extends v.GenericSchema>(spec: RequestSpec<S>, signal: AbortSignal) =>
    send(spec, signal).then((result) => (result.ok ? result : err(scrubToolError(result.error, secrets))));

  return {
    /** The site as it may be shown (no userinfo), e.g. `https://company.atlassian.net`. */
    site,
    credentialSource: auth.source,
    request,
    browseUrl: (key: string) => `${base.apiRoot}/browse/${encodeURIComponent(key)}`,

    /** `*.atlassian.net` is Cloud; other hosts are asked once per base URL (a failure is not remembered). */
    async deployment(signal: AbortSignal): Promise<Result<Deployment>> {
      if (isAtlassianCloudHost(base.hostname)) return ok("cloud");
      const path = "/rest/api/2/serverInfo";
      let pending = deployments.get(base.baseUrl);
      if (pending === undefined) {
        // Not tied to one caller's cancellation: other callers may be waiting for the same answer.
        pending = request({ method: "GET", path, schema: ServerInfoSchema }, new AbortController().signal)
          .catch((error: unknown) => err(toolError("internal", `Jira deployment detection failed: ${String(error)}`)))
          .then((info) => {
            if (!info.ok) {
              deployments.delete(base.baseUrl);
              return info;
            }
            const type = info.value.deploymentType;
            const deployment: Deployment = type?.toLowerCase() === "cloud" ? "cloud" : "server";
            log.debug(`Jira at ${site} is ${deployment} (deploymentType ${type ?? "absent"})`);
            return ok(deployment);
          });
        deployments.set(base.baseUrl, pending);
      }
      // A cancelled caller stops waiting (the listener goes with its signal); the detection goes on.
      const aborted = signal.aborted ? Promise.resolve() : once(signal, "abort");
      return Promise.race([pending, aborted.then(() => cancelled(`GET ${path}`))]);
    },
  };
}

const networkError = (message: string, hint?: string): Result<never> => err(toolError("network_error", message, hint));
const cancelled = (endpoint: string): Result<never> => err(cancelledError(`Jira request ${endpoint}`));

/** What a failed request was for: `notFound` is the sentence for a 404, `unknownProject` for a 400 naming one. */
type RequestPurpose = { notFound?: string; unknownProject?: string };

/** Jira's texts in an error body (`errorMessages[]`, `errors{}`, `message`): three at most, clipped; never the body. */
export function jiraErrorMessages(body: unknown, secrets: readonly string[] = []): string[] {
  if (typeof body !== "object" || body === null) return [];
  const { errorMessages, errors, message } = body as Record<string, unknown>;
  const fields = typeof errors === "object" && errors !== null && !Array.isArray(errors) ? Object.entries(errors) : [];
  const cleaned = [
    ...(Array.isArray(errorMessages) ? errorMessages : []),
    ...fields.map(([field, text]) => (typeof text === "string" ? `${field}: ${text}` : null)),
    message,
  ].flatMap((text) => {
    if (typeof text !== "string") return [];
    const plain = scrubControl(text).replace(/\s+/g, " ").trim();
    return plain === "" ? [] : [clip(scrubSecrets(plain, secrets), 300)];
  });
  return [...new Set(cleaned)].slice(0, 3);
}

/** A final (no longer retried) HTTP error status as a tool error; Jira's own messages follow the sentence. */
export function httpStatusError(
  status: number,
  purpose: RequestPurpose & { method: string; path: string },
  body: unknown,
  /** `site` is safe to show (no userinfo); `secrets` are scrubbed from Jira's messages, never shown. */
  failure: { site: string; credentialSource: string; secrets?: readonly string[] },
  extra: { retryAfterSeconds?: number; loginReason?: string | null } = {},
): ToolError {
  const messages = jiraErrorMessages(body, failure.secrets);
  const error = (code: ErrorCode, sentence: string, hint?: string) =>
    toolError(code, messages.length === 0 ? sentence : `${sentence}: ${messages.join(" ")}`, hint);
  const { site } = failure;
  const endpoint = `${purpose.method} ${purpose.path}`;
  switch (status) {
    case 401:
    case 403: {
      const reason =
        extra.loginReason && extra.loginReason !== "OK" ? ` (login reason: ${clip(extra.loginReason, 60)})` : "";
      return error(
        "credentials_invalid",
        `Jira at ${site} rejected the credentials from ${failure.credentialSource} (HTTP ${status} on ${endpoint})${reason}`,
        // Jira Server/Data Center sets X-Seraph-LoginReason; AUTHENTICATION_DENIED means a CAPTCHA is pending.
        extra.loginReason === "AUTHENTICATION_DENIED"
          ? "Jira requires a CAPTCHA after failed logins: sign in once in a browser, then check the token."
          : "Check the credentials: Jira Cloud needs your account e-mail with an API token " +
              "(https://id.atlassian.com/manage-profile/security/api-tokens); Data Center accepts a personal access " +
              "token in JIRA_PERSONAL_TOKEN. A 403 can also mean the account lacks permission for this resource.",
      );
    }
    case 404: {
      const hint =
        purpose.notFound !== undefined
          ? "Check the key, and that the account behind the credentials can browse the project."
          : `Check that JIRA_HOST (${site}) points at the Jira site itself.`;
      return error("not_found", purpose.notFound ?? `Jira has no resource at ${endpoint} (HTTP 404)`, hint);
    }
    case 410: {
      const hint = "This Jira deployment retired the endpoint; a newer twig-mcp may use its replacement.";
      return error("unsupported_api", `Jira at ${site} no longer supports ${endpoint} (HTTP 410 Gone)`, hint);
    }
    case 429: {
      const wait = extra.retryAfterSeconds === undefined ? "" : `; it asks to retry after ${extra.retryAfterSeconds} s`;
      const message = `Jira at ${site} is rate limiting requests (HTTP 429 on ${endpoint})${wait}`;
      return error("rate_limited", message, "Wait a little before calling Jira tools again.");
    }
    case 400: {
      // Jira answers an unknown project in JQL with 400, not 404.
      const project = purpose.unknownProject;
      if (project !== undefined && messages.some((m) => /does not exist for the field 'project'/i.test(m))) {
        const why = "Check the project key, and that the account behind the credentials can browse the project.";
        return error("not_found", project, why);
      }
      const why = "Check the filter values (status and assignee names must exist in this Jira).";
      return error("invalid_params", `Jira rejected ${endpoint} (HTTP 400)`, why);
    }
    default: {
      const hint = status >= 500 ? "Jira may be having problems; try again later." : undefined;
      return error("network_error", `Jira at ${site} answered HTTP ${status} to ${endpoint}`, hint);
    }
  }
}
