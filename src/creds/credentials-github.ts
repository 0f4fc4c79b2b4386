import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { GITHUB_COM, ghHostsPath, isGitHubCloud, readGhHosts } from "./github-hosts.ts";
import { lookupNetrc, type NetrcEntry, netrcPath } from "./netrc.ts";

/** `source`: where the token came from, e.g. `$GH_TOKEN`; never the token. */
export interface GitHubCredential {
  token: string;
  source: string;
}

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
 * A GitHub token for `host`, first hit wins: `~/.netrc` (machine `host`, the API host, `default`), the token variables,
 * gh's `hosts.yml`. A `default` entry or a variable goes to a host other than github.com and `*.ghe.com` only when the
 * user named it or gh is logged in to it, so a remote on a look-alike host never receives a token.
 */
export async function resolveGitHubCredential(ctx: Ctx, lookup: CredentialLookup): Promise<Result<GitHubCredential>> {
  const host = lookup.host.toLowerCase();
  const looked: string[] = [];
  const problems: string[] = [];

  const netrc = netrcPath(ctx);
  let fallback: NetrcEntry | null = null;
  for (const machine of new Set([host, lookup.apiHost?.toLowerCase() ?? host])) {
    looked.push(`${netrc} (machine ${machine})`);
    const found = await lookupNetrc(ctx, machine);
    if (!found.ok) {
      problems.push(found.error.message);
      ctx.log.warn(`GitHub credentials: ${found.error.message}`);
      break;
    }
    const entry = found.value;
    if (entry?.machine === null) fallback = entry;
    else if (entry) return ok({ token: entry.password, source: `${netrc} (machine ${entry.machine})` });
  }

  // A cloned repository whose remote points at some other host must not receive these.
  const hosts = await readGhHosts(ctx);
  const knownToGh = hosts.kind === "found" && hosts.value.has(host);
  const trusted = isGitHubCloud(host) || lookup.explicitDestination === true || knownToGh;
  if (fallback && trusted) return ok({ token: fallback.password, source: `${netrc} (default entry)` });
  if (fallback) looked.push(`${netrc} (default entry: not sent to ${host}, a host only a git remote names)`);
  for (const name of tokenVariables(host, lookup.explicitDestination === true, knownToGh)) {
    looked.push(`$${name}`);
    const value = ctx.env[name]?.trim();
    if (value) return ok({ token: value, source: `$${name}` });
  }

  const hostsPath = ghHostsPath(ctx);
  looked.push(`${hostsPath} (${host} oauth_token)`);
  if (hosts.kind === "found") {
    const token = hosts.value.get(host)?.oauth_token?.trim();
    if (token) return ok({ token, source: `${hostsPath} (${host})` });
  } else if (hosts.kind === "unreadable") {
    problems.push(`Cannot read ${hostsPath}: ${hosts.cause}`);
  }

  const detail = problems.length > 0 ? ` (${problems.join("; ")})` : "";
  return err(
    toolError(
      "credentials_missing",
      `GitHub credentials not found for ${host}${detail}. Looked in: ${looked.join(", ")}`,
      missingHint(host),
    ),
  );
}

function tokenVariables(host: string, explicitDestination: boolean, knownToGh: boolean): string[] {
  const cloud = ["GH_TOKEN", "GITHUB_TOKEN"];
  const enterprise = ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"];
  if (isGitHubCloud(host)) return cloud;
  return explicitDestination ? [...enterprise, ...cloud] : knownToGh ? enterprise : [];
}

function missingHint(host: string): string {
  const netrc = `or add \`machine ${host} login <user> password <token>\` to ~/.netrc (\`twig creds\` manages it).`;
  if (!isGitHubCloud(host)) {
    return `Export GH_HOST=${host} and GH_ENTERPRISE_TOKEN (for example GH_ENTERPRISE_TOKEN=$(gh auth token --hostname ${host})), ${netrc}`;
  }
  return `Export GH_TOKEN (for example GH_TOKEN=$(gh auth token${host === GITHUB_COM ? "" : ` --hostname ${host}`})), ${netrc}`;
}
