/** GitHub's GraphQL API through the REST client's Octokit: same token, retries, throttling and fetch policy. */
import * as v from "valibot";
import { toolError } from "../core/errors.ts";
import { scrubToolError } from "../core/http-policy.ts";
import { inline } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { untilCancelled } from "./http.ts";
import { type GitHubCall, githubErrorToToolError } from "./request.ts";

const VIA = "GitHub's GraphQL API";

/** `query` with `variables`, its data checked against `schema`; `what` names the data in error messages. */
export async function githubGraphql<S extends v.GenericSchema>(
  call: GitHubCall,
  query: string,
  variables: Record<string, string | number | boolean | null>,
  schema: S,
  what: string,
): Promise<Result<v.InferOutput<S>>> {
  const { connection } = call;
  let data: unknown;
  try {
    // Octokit posts to `/graphql`, or `/api/graphql` for a GHES root ending in `/api/v3`.
    data = await untilCancelled(
      connection.octokit.graphql(query, { ...variables, request: { signal: call.signal } }),
      call.signal,
    );
  } catch (error) {
    const mapped = graphqlError(error, call, what) ?? githubErrorToToolError(error, call, `${what} from ${VIA}`);
    return err(scrubToolError(mapped, connection.secrets));
  }
  const parsed = v.safeParse(schema, data);
  if (parsed.success) return ok(parsed.output);
  const path = parsed.issues[0]?.path?.map((item) => String(item.key)).join(".") || "(root)";
  const message = `Unexpected response from ${VIA} for ${what}: ${path}: ${parsed.issues[0]?.expected ?? "invalid"}`;
  return err(scrubToolError(toolError("network_error", message), connection.secrets));
}

/** An answer with `errors[]` (HTTP 200): GitHub's error type decides the code; `null` for an HTTP failure. */
function graphqlError(error: unknown, call: GitHubCall, what: string) {
  // Octokit's GraphqlResponseError, or the throttling plugin's error for RATE_LIMITED (its answer kept whole).
  type Answer = { errors?: unknown; headers?: Record<string, string | undefined> };
  const e = error as (Answer & { data?: Answer; response?: Answer }) | null;
  const errors = e?.errors ?? e?.data?.errors;
  const headers = e?.headers ?? e?.response?.headers;
  if (!Array.isArray(errors)) return null;
  const first = (errors[0] ?? {}) as { type?: unknown; message?: unknown };
  const type = typeof first.type === "string" ? first.type : "";
  const said = inline(typeof first.message === "string" ? first.message : "", 300);
  const source = call.connection.credentialSource;
  if (type === "RATE_LIMITED" || headers?.["x-ratelimit-remaining"] === "0") {
    const reset = Number(headers?.["x-ratelimit-reset"]);
    const at =
      Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000).toISOString().replace(/\.\d+Z$/, "Z") : null;
    return toolError(
      "rate_limited",
      `${VIA} rate limit exceeded${at ? `; it resets at ${at}` : ""} (while requesting ${what})`,
      "Wait until then before calling GitHub tools again; REST tools have their own limit and may still answer.",
    );
  }
  if (type === "FORBIDDEN" || /SAML/i.test(said)) {
    return toolError(
      "credentials_invalid",
      `${VIA} refused access to ${what}: ${said}`,
      `The token from ${source} lacks permission: classic tokens need the \`repo\` scope for private repositories, fine-grained tokens read access to Pull requests; organizations using SAML SSO require authorizing the token.`,
    );
  }
  if (type === "NOT_FOUND") {
    return toolError(
      "not_found",
      `${VIA} found no ${what}: ${said}`,
      `Check that ${call.target.owner}/${call.target.repo} and the PR number are right; private repositories look missing to a token that cannot see them.`,
    );
  }
  return toolError("network_error", `${VIA} failed for ${what}: ${said}`);
}
