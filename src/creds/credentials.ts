import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { GITHUB_COM, ghHostsPath, isGitHubCloud, readGhHosts } from "./github-hosts.ts";
import { lookupNetrc, netrcPath } from "./netrc.ts";

/** `source`: where the token came from, e.g. `$GH_TOKEN`; never the token. */
export type GitHubCredential = { token: string; source: string };

export interface CredentialLookup {
  /** Web host of the repository (`github.com`, an Enterprise Server host, `tenant.ghe.com`). */
  host: string;
  /** Host the API requests go to, when it differs (`api.github.com`); tried as a second `.netrc` machine. */
  apiHost?: string;
  /** The user chose where requests go (`GH_HOST`, `GITHUB_API_URL`), so generic token variables may follow. */
  explicitDestination?: boolean;
}

type Ctx = Pick<Context, "env" | "home" | "files" | "platform" | "log">;

/**
 * A GitHub token for `host`: `~/.netrc`, the token variables, gh's `hosts.yml`. A `default` entry or a variable goes
 * to a host not GitHub's own only when the user named it or gh knows it: a look-alike remote never gets a token.
 */
export async function resolveGitHubCredential(ctx: Ctx, lookup: CredentialLookup): Promise<Result<GitHubCredential>> {
  const host = lookup.host.toLowerCase();
  const looked: string[] = [];
  const problems: string[] = [];

  const netrc = netrcPath(ctx);
  const machines = [...new Set([host, lookup.apiHost?.toLowerCase() ?? host])];
  const found = await lookupNetrc(ctx, machines);
  // An unreadable file is named once, as the first place looked.
  looked.push(...machines.slice(0, found.ok ? undefined : 1).map((machine) => `${netrc} (machine ${machine})`));
  if (!found.ok) {
    problems.push(found.error);
    ctx.log.warn(`GitHub credentials: ${found.error}`);
  }
  const entry = found.ok ? found.value : null;
  if (entry && entry.machine !== null)
    return ok({ token: entry.password, source: `${netrc} (machine ${entry.machine})` });

  // A cloned repository whose remote points at some other host must not receive these.
  const hosts = await readGhHosts(ctx);
  const knownToGh = hosts.kind === "found" && hosts.value.has(host);
  const [cloud, explicit] = [isGitHubCloud(host), lookup.explicitDestination === true];
  if (entry && (cloud || explicit || knownToGh))
    return ok({ token: entry.password, source: `${netrc} (default entry)` });
  if (entry) looked.push(`${netrc} (default entry: not sent to ${host}, a host only a git remote names)`);
  // The gh CLI's rule: the Enterprise variables go to other hosts, the generic ones there only if the user named it.
  const enterprise = !cloud && (explicit || knownToGh) ? ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"] : [];
  for (const name of [...enterprise, ...(cloud || explicit ? ["GH_TOKEN", "GITHUB_TOKEN"] : [])]) {
    looked.push(`$${name}`);
    const value = ctx.env[name]?.trim();
    if (value) return ok({ token: value, source: `$${name}` });
  }

  const hostsPath = ghHostsPath(ctx);
  looked.push(`${hostsPath} (${host} oauth_token)`);
  const token = hosts.kind === "found" ? hosts.value.get(host)?.oauth_token?.trim() : undefined;
  if (token) return ok({ token, source: `${hostsPath} (${host})` });
  if (hosts.kind === "unreadable") problems.push(`Cannot read ${hostsPath}: ${hosts.cause}`);

  const detail = problems.length > 0 ? ` (${problems.join("; ")})` : "";
  const add = `or add \`machine ${host} login <user> password <token>\` to ~/.netrc (\`twig creds\` manages it).`;
  const hint = cloud
    ? `Export GH_TOKEN (for example GH_TOKEN=$(gh auth token${host === GITHUB_COM ? "" : ` --hostname ${host}`})), ${add}`
    : `Export GH_HOST=${host} and GH_ENTERPRISE_TOKEN (for example GH_ENTERPRISE_TOKEN=$(gh auth token --hostname ${host})), ${add}`;
  const message = `GitHub credentials not found for ${host}${detail}. Looked in: ${looked.join(", ")}`;
  return err(toolError("credentials_missing", message, hint));
}

/** Basic (e-mail or username with an API token) or Bearer (a Data Center personal access token); `source` is safe to show. */
export type ResolvedJiraCredential = { authorization: string; token: string; source: string };

/**
 * Jira credentials: `~/.netrc` for `machine` then `atlassian.net` (twig's order), the variables, then the `.netrc`
 * `default` entry (unknown to twig: last, never shadowing a choice). Failures name every place looked, no secret.
 */
export async function resolveJiraCredential(
  ctx: Pick<Context, "home" | "files" | "env">,
  machine: string,
): Promise<Result<ResolvedJiraCredential>> {
  const notes: string[] = [];
  const basic = (user: string, token: string, source: string) => {
    const authorization = `Basic ${Buffer.from(`${user}:${token}`, "utf8").toString("base64")}`;
    return ok({ authorization, token, source });
  };
  const machines = [...new Set([machine, "atlassian.net"])];
  const looked = machines.map((name) => `~/.netrc (machine "${redactUserinfo(name)}")`);
  const read = await lookupNetrc(ctx, machines);
  if (!read.ok) notes.push(read.error);
  const entry = read.ok ? read.value : null;
  // The place is named as asked, not as the file spells it.
  const place = looked[machines.findIndex((name) => name.toLowerCase() === entry?.machine?.toLowerCase())];
  if (entry && place) return basic(entry.login, entry.password, place);

  const env = (name: string) => ctx.env[name]?.trim() || undefined;
  const userVariable = env("JIRA_EMAIL") !== undefined ? "JIRA_EMAIL" : "JIRA_USERNAME";
  const [user, token, personal] = [env(userVariable), env("JIRA_API_TOKEN"), env("JIRA_PERSONAL_TOKEN")];
  looked.push("$JIRA_EMAIL or $JIRA_USERNAME with $JIRA_API_TOKEN", "$JIRA_PERSONAL_TOKEN");
  if (user !== undefined && token !== undefined) return basic(user, token, `$${userVariable} and $JIRA_API_TOKEN`);
  if (personal !== undefined)
    return ok({ authorization: `Bearer ${personal}`, token: personal, source: "$JIRA_PERSONAL_TOKEN" });
  if (entry !== null) return basic(entry.login, entry.password, "~/.netrc (default entry)");

  if (token !== undefined && user === undefined) notes.push("$JIRA_API_TOKEN is set but $JIRA_EMAIL is not");
  if (user !== undefined && token === undefined) notes.push(`$${userVariable} is set but $JIRA_API_TOKEN is not`);
  const detail = notes.length > 0 ? ` (${notes.join("; ")})` : "";
  const hint =
    `Add \`machine ${redactUserinfo(machine)} login <email> password <api-token>\` to ~/.netrc (\`twig creds\` can write it), ` +
    "or set JIRA_EMAIL and JIRA_API_TOKEN (Jira Cloud) or JIRA_PERSONAL_TOKEN (Data Center).";
  const message = `Jira credentials not found. Looked in: ${looked.join(", ")}${detail}.`;
  return err(toolError("credentials_missing", message, hint));
}

/** A machine name built from a URL with `user:password@` shows neither. */
function redactUserinfo(machine: string): string {
  return machine.replace(/^[^/@]*@/, "…@");
}
