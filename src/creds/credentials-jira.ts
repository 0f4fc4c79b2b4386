import type { Context } from "../core/context.ts";
import { type ToolError, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { sha256Hex } from "../core/sha256.ts";
import { lookupNetrc, type NetrcEntry } from "./netrc.ts";

/** How requests authenticate: e-mail/username + API token (Basic) or a Data Center personal access token. */
export type JiraCredential = { kind: "basic"; user: string; token: string } | { kind: "bearer"; token: string };

export interface ResolvedJiraCredential {
  credential: JiraCredential;
  /** Where it came from, safe to show (never the secret), e.g. `~/.netrc (machine "jira.example.com")`. */
  source: string;
  /** Every place consulted, in order, up to and including the one that answered. */
  looked: string[];
}

/** The fallback machine twig always tries after the Jira host itself (§5.3). */
const ATLASSIAN_NET_MACHINE = "atlassian.net";

const NETRC = "~/.netrc";

/**
 * Finds Jira credentials, in this order:
 *
 * 1. `~/.netrc` entry for `machine` (twig's `normalize_host` of the base URL);
 * 2. `~/.netrc` entry for `atlassian.net` (twig's fallback, tried even for non-Atlassian hosts);
 * 3. `JIRA_EMAIL` (or `JIRA_USERNAME`) with `JIRA_API_TOKEN` — Basic authentication;
 * 4. `JIRA_PERSONAL_TOKEN` — Bearer authentication with a Data Center personal access token;
 * 5. the `default` entry of `~/.netrc` (not understood by twig; kept last so it never shadows an
 *    explicit choice above).
 *
 * Nothing is cached here: the `.netrc` reader re-parses the file only when it changes, so fixing
 * credentials takes effect on the next call. Failures name every place looked, never a secret.
 */
export async function resolveJiraCredential(
  ctx: Pick<Context, "home" | "files" | "env">,
  machine: string,
): Promise<Result<ResolvedJiraCredential>> {
  const looked: string[] = [];
  const found = (credential: JiraCredential, source: string) => ok({ credential, source, looked });
  let netrcProblem: ToolError | null = null;
  let defaultEntry: NetrcEntry | null = null;

  for (const name of new Set([machine, ATLASSIAN_NET_MACHINE])) {
    const place = `${NETRC} (machine "${redactUserinfo(name)}")`;
    looked.push(place);
    if (netrcProblem !== null) continue;
    const read = await lookupNetrc(ctx, name);
    if (!read.ok) netrcProblem = read.error;
    else if (read.value?.machine === null) defaultEntry = read.value;
    else if (read.value) return found({ kind: "basic", user: read.value.login, token: read.value.password }, place);
  }

  const email = envValue(ctx, "JIRA_EMAIL");
  const user = email ?? envValue(ctx, "JIRA_USERNAME");
  const userVariable = email !== undefined ? "JIRA_EMAIL" : "JIRA_USERNAME";
  const apiToken = envValue(ctx, "JIRA_API_TOKEN");
  looked.push("$JIRA_EMAIL or $JIRA_USERNAME with $JIRA_API_TOKEN");
  if (user !== undefined && apiToken !== undefined) {
    return found({ kind: "basic", user, token: apiToken }, `$${userVariable} and $JIRA_API_TOKEN`);
  }

  const personalToken = envValue(ctx, "JIRA_PERSONAL_TOKEN");
  looked.push("$JIRA_PERSONAL_TOKEN");
  if (personalToken !== undefined) return found({ kind: "bearer", token: personalToken }, "$JIRA_PERSONAL_TOKEN");

  if (defaultEntry !== null) {
    looked.push(`${NETRC} (default entry)`);
    return found({ kind: "basic", user: defaultEntry.login, token: defaultEntry.password }, `${NETRC} (default entry)`);
  }

  const notes: string[] = [];
  if (netrcProblem !== null) notes.push(netrcProblem.message);
  if (apiToken !== undefined && user === undefined) notes.push("$JIRA_API_TOKEN is set but $JIRA_EMAIL is not");
  if (user !== undefined && apiToken === undefined) notes.push(`$${userVariable} is set but $JIRA_API_TOKEN is not`);
  const detail = notes.length > 0 ? ` (${notes.join("; ")})` : "";
  return err(
    toolError(
      "credentials_missing",
      `Jira credentials not found. Looked in: ${looked.join(", ")}${detail}.`,
      `Add \`machine ${redactUserinfo(machine)} login <email> password <api-token>\` to ~/.netrc (\`twig creds\` can write it), ` +
        "or set JIRA_EMAIL and JIRA_API_TOKEN (Jira Cloud) or JIRA_PERSONAL_TOKEN (Data Center).",
    ),
  );
}

/** A machine name built from a URL with `user:password@` shows neither. */
function redactUserinfo(machine: string): string {
  return machine.replace(/^[^/@]*@/, "…@");
}

function envValue(ctx: Pick<Context, "env">, name: string): string | undefined {
  return ctx.env[name]?.trim() || undefined;
}

export function authorizationHeader(credential: JiraCredential): string {
  if (credential.kind === "bearer") return `Bearer ${credential.token}`;
  return `Basic ${Buffer.from(`${credential.user}:${credential.token}`, "utf8").toString("base64")}`;
}

/** A stable, non-reversible identity for cache keys, so no secret is kept as a map key. */
export function credentialIdentity(credential: JiraCredential): string {
  const material =
    credential.kind === "bearer"
      ? `bearer\u0000${credential.token}`
      : `basic\u0000${credential.user}\u0000${credential.token}`;
  return sha256Hex(material).slice(0, 32);
}
