import * as v from "valibot";
import { cancelledError, type ToolError, toolError } from "../core/errors.ts";
import { formatBytes, hostOf, isSameOrigin, scrubToolError, transportFailure } from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";
import { clip, scrubControl, scrubSecrets } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { GitHubConnection } from "./client.ts";
import { byteBudget, RequestAborted, untilCancelled } from "./http.ts";
import type { GitHubTarget } from "./target.ts";

export interface GitHubCall {
  connection: GitHubConnection;
  target: GitHubTarget;
  signal: AbortSignal;
  now: () => Date;
  log?: Logger;
}

/** What a request is for, a noun phrase ("pull request #12 in o/r"); `missing`, what a 404 means if not `what`. */
type Subject = string | { what: string; missing?: string };

/** A GET through Octokit (`route`: a route or a `Link` URL), checked against `schema`; failures are tool errors. */
export async function githubGet<S extends v.GenericSchema>(
  call: GitHubCall,
  route: string,
  params: Record<string, string | number | undefined>,
  schema: S,
  subject: Subject,
): Promise<Result<{ data: v.InferOutput<S>; link: string | undefined }>> {
  const { connection, target } = call;
  let data: unknown;
  let link: string | undefined;
  try {
    const sent = connection.octokit.request(route, {
      // Unused parameters would become query parameters, so only templated routes get these.
      ...(route.includes("{owner}") ? { owner: target.owner, repo: target.repo } : {}),
      ...params,
      // Octokit's parser keeps integers beyond 2^53 exact (GitHub sends none) at ten times JSON.parse's cost.
      request: { signal: call.signal, parseSuccessResponseBody: false },
    });
    const raw = await untilCancelled(sent, call.signal);
    data = raw.data;
    if (data instanceof ReadableStream) {
      // As Octokit would decode it: JSON when labelled so and parseable, else the text.
      data = await Bun.readableStreamToText(data);
      if (/^application\/(?:scim\+)?json\s*(?:;|$)/i.test(String(raw.headers["content-type"] ?? ""))) {
        try {
          data = JSON.parse(data as string);
        } catch {}
      }
    }
    link = raw.headers.link;
  } catch (error) {
    return err(githubErrorToToolError(error, call, subject));
  }
  const parsed = v.safeParse(schema, data);
  if (parsed.success) return ok({ data: parsed.output, link });
  // Name the field and what was expected, never the value received (it is GitHub's data).
  const issue = parsed.issues[0];
  const path = issue?.path?.map((item) => String(item.key)).join(".") || "(root)";
  const expected = issue?.expected ? `expected ${issue.expected}` : "invalid value";
  const message = `Unexpected response from GitHub for ${whatOf(subject)}: ${path}: ${expected}`;
  const hint = `Check that ${connection.baseUrl} is a GitHub REST API root.`;
  return err(scrubToolError(toolError("network_error", message, hint), connection.secrets));
}

/** `Link: <url>; rel="next", <url>; rel="last"` → `{ next: url, last: url }`. */
export function parseLinkHeader(header: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of header?.split(",") ?? []) {
    const [, url, params = ""] = /<([^>]*)>\s*((?:;\s*[^;]+)*)/.exec(part.trim()) ?? [];
    const rels = /;\s*rel="?([^";]+)"?/.exec(params)?.[1];
    if (url !== undefined && rels) for (const rel of rels.split(/\s+/)) links[rel] = url;
  }
  return links;
}

/** What one paged read (all its pages together) takes in at most: beyond it, what was read is kept and said. */
export const MAX_PAGED_BYTES = 32 * 1024 * 1024;

/** Why a paged read stopped before its end, for the reply to say. */
const stoppedBy = {
  bytes: `its pages passed the ${formatBytes(MAX_PAGED_BYTES)} one read takes in`,
  empty: "GitHub sent an empty page that claimed more",
  repeat: "GitHub sent a page cursor it had sent before",
  pages: (n: number) => `one read takes at most ${n} pages`,
};

/**
 * Pages that follow one another by cursor (GraphQL), at most `maxPages`, stopping early on a page with
 * nothing, a cursor seen before, or the byte budget spent (what was read is kept). `page` returns a page's
 * items and the cursor of the next, `null` at the end.
 */
export async function followCursors<T>(
  call: GitHubCall,
  maxPages: number,
  page: (call: GitHubCall, after: string | null) => Promise<Result<{ items: T[]; next: string | null }>>,
): Promise<Result<{ items: T[]; stopped: string | null }>> {
  const read = byteBudget(call, MAX_PAGED_BYTES);
  const items: T[] = [];
  const seen = new Set<string>();
  let after: string | null = null;
  for (let pages = 0; pages < maxPages; pages++) {
    if (pages > 0 && read.spent()) return ok({ items, stopped: stoppedBy.bytes });
    const got = await page(read.call, after);
    if (!got.ok) return pages > 0 && read.spent() ? ok({ items, stopped: stoppedBy.bytes }) : got;
    items.push(...got.value.items);
    const { next } = got.value;
    if (next === null) return ok({ items, stopped: null });
    if (got.value.items.length === 0) return ok({ items, stopped: stoppedBy.empty });
    if (seen.has(next)) return ok({ items, stopped: stoppedBy.repeat });
    seen.add(next);
    after = next;
  }
  return ok({ items, stopped: stoppedBy.pages(maxPages) });
}

export type Pages<T> = { items: T[]; hasMore: boolean; stopped?: string };

/**
 * Every page of a list, up to `maxItems`; page 1's `rel="last"` lets the rest go in parallel (not `octokit.paginate`).
 * At most `ceil(maxItems / perPage)` pages and {@link MAX_PAGED_BYTES} in all; an empty page or a repeated link ends it.
 */
export async function fetchPages<S extends v.GenericSchema, T>(
  outer: GitHubCall,
  request: {
    route: string;
    params: Record<string, string | number | undefined>;
    perPage: number;
    schema: S;
    items: (data: v.InferOutput<S>) => T[];
    maxItems: number;
    what: Subject;
  },
): Promise<Result<Pages<T>>> {
  const { call, spent } = byteBudget(outer, MAX_PAGED_BYTES);
  const perPage = Math.min(100, Math.max(1, request.perPage));
  const page = (n: number) =>
    githubGet(call, request.route, { ...request.params, per_page: perPage, page: n }, request.schema, request.what);
  const first = await page(1);
  if (!first.ok) return first;
  const items = [...request.items(first.value.data)];
  let links = parseLinkHeader(first.value.link);
  const pagesWanted = Math.ceil(request.maxItems / perPage);
  const lastPage = Number(URL.parse(links.last ?? "")?.searchParams.get("page"));
  const done = (morePages: boolean, stopped?: string) =>
    ok({
      items: items.slice(0, request.maxItems),
      hasMore: morePages || items.length > request.maxItems,
      ...(stopped === undefined ? {} : { stopped }),
    });

  if (Number.isInteger(lastPage) && lastPage > 0) {
    const upTo = Math.min(lastPage, pagesWanted);
    const rest = await Promise.all(Array.from({ length: Math.max(0, upTo - 1) }, (_, i) => page(i + 2)));
    for (const next of rest) {
      if (!next.ok) return spent() ? done(true, stoppedBy.bytes) : next;
      items.push(...request.items(next.value.data));
    }
    return done(lastPage > upTo);
  }

  const seen = new Set<string>();
  let added = items.length;
  for (let fetched = 1; links.next && fetched < pagesWanted && items.length < request.maxItems; fetched++) {
    if (added === 0) return done(true, stoppedBy.empty);
    if (seen.has(links.next)) return done(true, stoppedBy.repeat);
    seen.add(links.next);
    if (spent()) return done(true, stoppedBy.bytes);
    // The token goes wherever the link points.
    if (!isSameOrigin(links.next, `${call.connection.baseUrl}/`)) {
      call.log?.warn(`GitHub sent a next-page link to another origin for ${whatOf(request.what)}; not followed`);
      break;
    }
    const next = await githubGet(call, `GET ${links.next}`, {}, request.schema, request.what);
    if (!next.ok) return spent() ? done(true, stoppedBy.bytes) : next;
    const found = request.items(next.value.data);
    added = found.length;
    items.push(...found);
    links = parseLinkHeader(next.value.link);
  }
  return done(links.next !== undefined);
}

type HttpFailure = NonNullable<ReturnType<typeof httpFailure>>;

/** The parts of an Octokit `RequestError` read here; `null` for anything without a status. */
export function httpFailure(error: unknown) {
  const e = error as {
    status?: unknown;
    message?: unknown;
    response?: { headers?: Record<string, string | undefined>; data?: unknown };
    cause?: unknown;
  } | null;
  if (typeof e?.status !== "number") return null;
  return {
    status: e.status,
    message: typeof e.message === "string" ? e.message : "",
    headers: e.response?.headers ?? {},
    data: e.response?.data,
    // Octokit reports a request that got no answer as status 500 without a response.
    hasResponse: e.response !== undefined,
    cause: e.cause,
  };
}

const whatOf = (subject: Subject) => (typeof subject === "string" ? subject : subject.what);

/** Anything Octokit (or our fetch) threw, as a tool error scrubbed of every known secret (the last line of defence). */
export function githubErrorToToolError(error: unknown, call: GitHubCall, subject: Subject): ToolError {
  return scrubToolError(mapError(error, call, subject), call.connection.secrets);
}

function mapError(error: unknown, call: GitHubCall, subject: Subject) {
  const { what, missing = what }: Exclude<Subject, string> = typeof subject === "string" ? { what: subject } : subject;
  const { baseUrl, credentialSource: source, secrets } = call.connection;
  const stopped = [error, (error as { cause?: unknown } | null)?.cause].find((e) => e instanceof RequestAborted);
  switch (stopped?.reason) {
    case "cancelled":
      return cancelledError(`Request for ${what}`);
    case "timeout":
      return toolError(
        "network_error",
        `GitHub did not answer the request for ${what} within ${stopped.timeoutMs} ms`,
        `Check the network connection to ${baseUrl}; set TWIG_MCP_HTTP_TIMEOUT_MS to wait longer.`,
      );
    case "too-large":
    case "cross-origin-redirect":
      return toolError(
        "network_error",
        `${stopped.message} (while requesting ${what})`,
        stopped.reason === "too-large"
          ? `Check that ${baseUrl} is a GitHub REST API root; no answer these tools ask for comes near the cap.`
          : "Set GITHUB_API_URL (or GH_HOST) to the address the server redirects to, if you trust it.",
      );
  }
  const failure = httpFailure(error);
  if (!failure) {
    const text = error instanceof Error ? error.message : String(error);
    return toolError("network_error", `Unexpected failure while requesting ${what}: ${text}`);
  }
  if (!failure.hasResponse) {
    const transport = transportFailure(failure.cause ?? { message: failure.message });
    if (transport.kind === "dns") {
      return toolError(
        "network_error",
        `Could not reach GitHub: the name ${hostOf(baseUrl, "(GITHUB_API_URL)")} did not resolve (${transport.code}) while requesting ${what}`,
        "Check the host name (the git remote, GH_HOST or GITHUB_API_URL), the network connection and any VPN.",
      );
    }
    return toolError(
      "network_error",
      `Could not reach GitHub at ${baseUrl} while requesting ${what}: ${transport.detail}`,
      "Check the network connection and any proxy settings; GH_HOST or GITHUB_API_URL choose the server.",
    );
  }
  const { status } = failure;
  const github = githubMessage(failure, secrets);
  const rate = rateLimitInfo(failure, call.now());
  if (rate) return rate;
  if (status === 401) {
    return toolError(
      "credentials_invalid",
      `GitHub rejected the credentials (HTTP 401${github ? `: ${github}` : ""})`,
      `The token from ${source} is invalid, expired or revoked; replace it (a new token, or \`gh auth refresh\` when it came from gh).`,
    );
  }
  if (status === 403) {
    return toolError(
      "credentials_invalid",
      `GitHub refused access to ${what} (HTTP 403${github ? `: ${github}` : ""})`,
      `The token from ${source} lacks permission: classic tokens need the \`repo\` scope for private repositories; fine-grained tokens need read access to Pull requests, Checks and Commit statuses; organizations using SAML SSO require authorizing the token.`,
      "refused",
    );
  }
  if (status === 404 || status === 410) {
    return toolError(
      "not_found",
      `${missing.charAt(0).toUpperCase()}${missing.slice(1)} not found (HTTP ${status})`,
      `Check that ${call.target.owner}/${call.target.repo} (and any number given) is right. Private repositories also answer 404 when the token from ${source} cannot see them: classic tokens need the \`repo\` scope, fine-grained tokens need access to the repository.`,
      "refused",
    );
  }
  if (status === 422 || status === 400) {
    return toolError(
      "invalid_params",
      `GitHub rejected the request for ${what} (HTTP ${status}${github ? `: ${github}` : ""})`,
      "Check the parameters (for example `head` is `branch` or `owner:branch`).",
    );
  }
  if (status === 304) {
    return toolError("network_error", `GitHub answered 304 Not Modified for ${what} with no cached copy`);
  }
  return toolError(
    "network_error",
    `GitHub API error for ${what}: HTTP ${status}${github ? ` (${github})` : ""}`,
    status >= 500 ? "GitHub may be having trouble (https://www.githubstatus.com); try again shortly." : undefined,
  );
}

/** GitHub's `message` field (without Octokit's appended documentation URL), shortened. */
function githubMessage({ data }: HttpFailure, secrets: readonly string[] = []): string {
  const field = (data as { message?: unknown } | null)?.message;
  const text = typeof field === "string" ? field : typeof data === "string" && !/^\s*</.test(data) ? data : "";
  return clip(scrubSecrets(scrubControl(text).replace(/\s+/g, " ").trim(), secrets), 301);
}

function rateLimitInfo(failure: HttpFailure, now: Date): ToolError | null {
  const { status, headers } = failure;
  if (status !== 403 && status !== 429) return null;
  const reset = Number(headers["x-ratelimit-reset"]);
  const retryAfter = Number(headers["retry-after"]);
  const secondary = /secondary rate limit|abuse detection/i.test(`${githubMessage(failure)} ${failure.message}`)
    ? "secondary "
    : "";
  const hint =
    "Wait until then before calling GitHub tools again; avoid repeating calls in a tight loop. Authenticated requests get a higher limit than anonymous ones.";
  const limited = (message: string) => toolError("rate_limited", message, hint);
  if (headers["retry-after"] !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
    const at = iso(new Date(now.getTime() + retryAfter * 1000));
    return limited(`GitHub ${secondary}rate limit exceeded; retry after ${retryAfter} s (at ${at})`);
  }
  if (headers["x-ratelimit-remaining"] === "0" && Number.isFinite(reset) && reset > 0) {
    const at = new Date(reset * 1000);
    const perHour = headers["x-ratelimit-limit"] ? ` (${headers["x-ratelimit-limit"]} requests per hour)` : "";
    return limited(`GitHub API rate limit exceeded${perHour}; it resets at ${iso(at)} (${inHowLong(at, now)})`);
  }
  return secondary || status === 429 ? limited(`GitHub ${secondary}rate limit exceeded; retry in a minute`) : null;
}

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function inHowLong(at: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((at.getTime() - now.getTime()) / 1000));
  if (seconds < 90) return `in ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `in ${minutes} min` : `in ${Math.round(minutes / 60)} h`;
}
