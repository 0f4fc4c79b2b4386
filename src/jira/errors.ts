import { type ErrorCode, type ToolError, toolError } from "../core/errors.ts";
import { scrubSecrets } from "../core/http-policy.ts";
import { clip } from "../core/plain-text.ts";

/** What a failed request was for, so errors can say it in the caller's terms. */
export interface RequestPurpose {
  method: string;
  /** Path below the API root, without the query string, e.g. `/rest/api/3/issue/SHOP-1`. */
  path: string;
  /** Sentence for a 404, e.g. `Issue SHOP-1 does not exist or is not visible to you`. */
  notFound?: string;
  /** Sentence for a 400 naming an unknown project (Jira answers those with 400, not 404). */
  unknownProject?: string;
}

/**
 * Jira's error texts from a response body: `errorMessages[]`, the values of `errors{}`, and the
 * `message` of gateway-style bodies. At most three of 300 characters, deduplicated, control
 * characters removed; never the raw body (which may be an HTML page).
 */
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
    const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
    return plain === "" ? [] : [clip(scrubSecrets(plain, secrets), 300)];
  });
  return [...new Set(cleaned)].slice(0, 3);
}

/** A final (no longer retried) HTTP error status as a tool error; Jira's own messages follow the sentence. */
export function httpStatusError(
  status: number,
  purpose: RequestPurpose,
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
    case 410:
      return error(
        "unsupported_api",
        `Jira at ${site} no longer supports ${endpoint} (HTTP 410 Gone)`,
        "This Jira deployment retired the endpoint; a newer twig-mcp may use its replacement.",
      );
    case 429: {
      const wait = extra.retryAfterSeconds === undefined ? "" : `; it asks to retry after ${extra.retryAfterSeconds} s`;
      return error(
        "rate_limited",
        `Jira at ${site} is rate limiting requests (HTTP 429 on ${endpoint})${wait}`,
        "Wait a little before calling Jira tools again.",
      );
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
    default:
      return error(
        "network_error",
        `Jira at ${site} answered HTTP ${status} to ${endpoint}`,
        status >= 500 ? "Jira may be having problems; try again later." : undefined,
      );
  }
}
