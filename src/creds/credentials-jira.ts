import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { lookupNetrc, type NetrcEntry } from "./netrc.ts";

/** How requests authenticate: e-mail/username + API token (Basic) or a Data Center personal access token. */
export type JiraCredential = { kind: "basic"; user: string; token: string } | { kind: "bearer"; token: string };

/** `source` is safe to show, e.g. `~/.netrc (machine "jira.example.com")`. */
export interface ResolvedJiraCredential {
  credential: JiraCredential;
  source: string;
}

/**
 * Finds Jira credentials: `~/.netrc` for `machine` then `atlassian.net` (twig's order), `JIRA_EMAIL` (or
 * `JIRA_USERNAME`) with `JIRA_API_TOKEN`, `JIRA_PERSONAL_TOKEN` (Bearer), then the `.netrc` `default` entry (unknown to
 * twig: last, so it never shadows an explicit choice). Failures name every place looked, never a secret.
 */
export async function resolveJiraCredential(
  ctx: Pick<Context, "home" | "files" | "env">,
  machine: string,
): Promise<Result<ResolvedJiraCredential>> {
  const looked: string[] = [];
  const notes: string[] = [];
  const basic = (entry: NetrcEntry): JiraCredential => ({ kind: "basic", user: entry.login, token: entry.password });
  let defaultEntry: NetrcEntry | null = null;

  for (const name of new Set([machine, "atlassian.net"])) {
    const place = `~/.netrc (machine "${redactUserinfo(name)}")`;
    looked.push(place);
    if (notes.length > 0) continue;
    const read = await lookupNetrc(ctx, name);
    if (!read.ok) notes.push(read.error.message);
    else if (read.value?.machine === null) defaultEntry = read.value;
    else if (read.value) return ok({ credential: basic(read.value), source: place });
  }

  const env = (name: string) => ctx.env[name]?.trim() || undefined;
  const userVariable = env("JIRA_EMAIL") !== undefined ? "JIRA_EMAIL" : "JIRA_USERNAME";
  const [user, token, personal] = [env(userVariable), env("JIRA_API_TOKEN"), env("JIRA_PERSONAL_TOKEN")];
  looked.push("$JIRA_EMAIL or $JIRA_USERNAME with $JIRA_API_TOKEN", "$JIRA_PERSONAL_TOKEN");
  if (user !== undefined && token !== undefined) {
    return ok({ credential: { kind: "basic", user, token }, source: `$${userVariable} and $JIRA_API_TOKEN` });
  }
  if (personal !== undefined)
    return ok({ credential: { kind: "bearer", token: personal }, source: "$JIRA_PERSONAL_TOKEN" });
  if (defaultEntry !== null) return ok({ credential: basic(defaultEntry), source: "~/.netrc (default entry)" });

  if (token !== undefined && user === undefined) notes.push("$JIRA_API_TOKEN is set but $JIRA_EMAIL is not");
  if (user !== undefined && token === undefined) notes.push(`$${userVariable} is set but $JIRA_API_TOKEN is not`);
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

export function authorizationHeader(credential: JiraCredential): string {
  if (credential.kind === "bearer") return `Bearer ${credential.token}`;
  return `Basic ${Buffer.from(`${credential.user}:${credential.token}`, "utf8").toString("base64")}`;
}
