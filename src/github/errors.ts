import { type ToolError, toolError } from "../core/errors.ts";
import { hostOf, scrubSecrets, scrubToolError, transportFailure } from "../core/http-policy.ts";
import { clip } from "../core/plain-text.ts";
import { RequestAborted, ResponseRefused } from "./http.ts";

/** What a failed request was about, for messages: `what` reads as a noun phrase ("pull request #12 in o/r"). */
export interface RequestSubject {
  what: string;
  /** What a 404 means, when not `what` itself (a list's 404 is its repository's). */
  missing?: string;
  baseUrl: string;
  credentialSource: string;
  /** `owner/repo`, for the 404 hint. */
  repository: string;
  secrets: readonly string[];
  now: Date;
}

export type HttpFailure = NonNullable<ReturnType<typeof httpFailure>>;

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

/** Anything Octokit (or our fetch) threw, as a tool error scrubbed of every known secret: the last line of defence. */
export function githubErrorToToolError(error: unknown, subject: RequestSubject): ToolError {
  return scrubToolError(mapError(error, subject), subject.secrets);
}

function mapError(error: unknown, subject: RequestSubject): ToolError {
  const { what, baseUrl, credentialSource: source } = subject;
  if (error instanceof RequestAborted) {
    if (error.reason === "cancelled") return toolError("network_error", `Request for ${what} was cancelled`);
    return toolError(
      "network_error",
      `GitHub did not answer the request for ${what} within ${error.timeoutMs} ms`,
      `Check the network connection to ${baseUrl}; set TWIG_MCP_HTTP_TIMEOUT_MS to wait longer.`,
    );
  }
  const refused = [error, (error as { cause?: unknown } | null)?.cause].find((e) => e instanceof ResponseRefused);
  if (refused instanceof ResponseRefused) {
    return toolError(
      "network_error",
      `${refused.message} (while requesting ${what})`,
      refused.reason === "too-large"
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
  const github = githubMessage(failure, subject.secrets);
  const rate = rateLimitInfo(failure, subject.now);
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
    );
  }
  if (status === 404 || status === 410) {
    const missing = subject.missing ?? what;
    return toolError(
      "not_found",
      `${missing.charAt(0).toUpperCase()}${missing.slice(1)} not found (HTTP ${status})`,
      `Check that ${subject.repository} (and any number given) is right. Private repositories also answer 404 when the token from ${source} cannot see them: classic tokens need the \`repo\` scope, fine-grained tokens need access to the repository.`,
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
  return clip(scrubSecrets(text.replace(/\s+/g, " ").trim(), secrets), 301);
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
