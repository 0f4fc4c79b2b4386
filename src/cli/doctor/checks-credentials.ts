import * as v from "valibot";
import type { Context } from "../../core/context.ts";
import { resolveJiraCredential } from "../../creds/credentials.ts";
import { GITHUB_COM, parseHostSetting } from "../../creds/github-hosts.ts";
import { MAX_NETRC_BYTES, netrcPath, parseNetrc } from "../../creds/netrc.ts";
import { readBounded } from "../../fs/bounded-read.ts";
import { decodeUtf8, describeFsError } from "../../fs/cached-file.ts";
import { resolveGitHubAccess } from "../../github/client.ts";
import { githubGet } from "../../github/request.ts";
import { resolveTarget } from "../../github/target.ts";
import { checkJiraHost, isAtlassianCloudHost, normalizeHost } from "../../jira/host.ts";
import type { ServiceContext } from "../../services/services.ts";
import { type Check, checker } from "./report.ts";

/** `~/.netrc`: twig's credential store. Its secrets are never read into the report, only machine names. */
export async function checkNetrc(ctx: Pick<Context, "home" | "platform">): Promise<Check> {
  const path = netrcPath(ctx);
  const result = checker("netrc", ".netrc");
  // Bounded and type-checked: a FIFO or a link to a device would never finish reading.
  const read = readBounded(path, MAX_NETRC_BYTES);
  switch (read.kind) {
    case "missing":
      return result(
        "info",
        `${path} does not exist`,
        "Credentials can come from environment variables instead; `twig creds` writes this file.",
      );
    case "directory":
    case "special":
      return result("fail", `${path} is not a regular file`, "Replace it with a plain text file.");
    case "too-large":
      return result("fail", `${path} is over ${read.limit} bytes`, "A .netrc is a few lines; check its content.");
    case "unreadable":
      return result("fail", `cannot read ${path}: ${describeFsError(read.error)}`, "Check its permissions.");
  }
  const text = decodeUtf8(read.bytes);
  if (text === null) return result("fail", `${path} is not valid UTF-8`, "Re-save it as UTF-8 text.");
  const machines = [...new Set(parseNetrc(text).map((entry) => entry.machine ?? "default"))];
  const listed = machines.length === 0 ? "no complete entries" : `machines: ${machines.join(", ")}`;
  // Windows has no Unix permission bits; its ACLs are outside what a mode can tell.
  if (ctx.platform !== "win32" && (read.info.mode & 0o077) !== 0) {
    const octal = (read.info.mode & 0o777).toString(8).padStart(3, "0");
    return result(
      "warn",
      `${path} (${listed}) is readable by other users (mode ${octal})`,
      `It holds tokens: chmod 600 ${path}`,
    );
  }
  return result("ok", `${path} (${listed})`);
}

/** A sign-in is one request; a service that has not answered by then would not answer a tool either. */
const ONLINE_TIMEOUT_MS = 15_000;

/**
 * The GitHub host the tools would talk to (from the repository's remotes, or GH_HOST / github.com)
 * and where the token would come from, resolved exactly as a tool call resolves it; with `online`,
 * one authenticated request (`GET /user`) through the same client the tools use.
 */
export async function checkGitHub(ctx: ServiceContext, online: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  let host = parseHostSetting(ctx.env.GH_HOST) ?? GITHUB_COM;
  if (ctx.repo.ok) {
    const repo = checker("github-repo", "GitHub repository");
    const target = await resolveTarget(ctx, null);
    if (target.ok) host = target.value.host;
    checks.push(
      target.ok
        ? repo("ok", `${target.value.owner}/${target.value.repo} on ${host}`)
        : repo("warn", target.error.message, "GitHub tools then need explicit owner and repo arguments."),
    );
  }
  const token = checker("github-credentials", "GitHub token");
  const access = await resolveGitHubAccess(ctx, host);
  if (access.ok) checks.push(token("ok", `for ${host}: from ${access.value.credential.source}`));
  else if (access.error.code !== "credentials_missing")
    checks.push(token("fail", access.error.message, access.error.hint));
  else checks.push(token("warn", `none for ${host}; GitHub tools answer credentials_missing`, access.error.hint));
  if (!access.ok || !online) return checks;

  const signIn = checker("github-online", "GitHub sign-in");
  const connection = await ctx.github(host);
  if (!connection.ok) return [...checks, signIn("fail", connection.error.message, connection.error.hint)];
  const request = { connection: connection.value, target: { host, owner: "", repo: "" }, now: ctx.now };
  const signal = AbortSignal.timeout(ONLINE_TIMEOUT_MS);
  const user = v.object({ login: v.string() });
  const me = await githubGet({ ...request, signal }, "GET /user", {}, user, "the signed-in user");
  if (!me.ok) return [...checks, signIn("fail", me.error.message, me.error.hint)];
  return [...checks, signIn("ok", `signed in to ${host} as ${me.value.data.login}`)];
}

const CLIENT_ENV_HINT =
  "MCP clients start twig-mcp with their own environment: set it in the server's \"env\" in the client's configuration, not only in your shell.";

/**
 * `JIRA_HOST` and the Jira credentials for it, as the Jira tools resolve them; with `online`, one
 * authenticated request (`GET /rest/api/2/myself`) through the same client the tools use.
 */
export async function checkJira(ctx: ServiceContext, online: boolean): Promise<Check[]> {
  const host = checker("jira-host", "JIRA_HOST");
  const raw = ctx.env.JIRA_HOST;
  if (raw === undefined || raw === "") {
    const hint = `Set JIRA_HOST to your Jira site (company.atlassian.net), or pass --disable jira. ${CLIENT_ENV_HINT}`;
    return [host("warn", "not set; Jira tools answer credentials_missing", hint)];
  }
  const checked = checkJiraHost(raw);
  if (!checked.ok) {
    const { code, message, hint } = checked.error;
    return [host("fail", `${code}: ${message}`, hint)];
  }
  const { base, note } = checked.value;
  const kind = isAtlassianCloudHost(base.hostname)
    ? "Jira Cloud"
    : "Jira Server/Data Center or Cloud, asked at first use";
  const checks = [host("ok", `${base.apiRoot} (${kind})${note === null ? "" : `; ${note}`}`)];
  const credentials = checker("jira-credentials", "Jira credentials");
  const credential = await resolveJiraCredential(ctx, normalizeHost(base.baseUrl));
  if (!credential.ok) {
    const { message, hint } = credential.error;
    return [...checks, credentials("fail", message, `${hint ?? ""} ${CLIENT_ENV_HINT}`.trim())];
  }
  checks.push(credentials("ok", `from ${credential.value.source}`));
  if (!online) return checks;

  const signIn = checker("jira-online", "Jira sign-in");
  const client = await ctx.jira();
  if (!client.ok) return [...checks, signIn("fail", client.error.message, client.error.hint)];
  const schema = v.object({ displayName: v.optional(v.string()), name: v.optional(v.string()) });
  const me = await client.value.request(
    { method: "GET", path: "/rest/api/2/myself", schema },
    AbortSignal.timeout(ONLINE_TIMEOUT_MS),
  );
  if (!me.ok) return [...checks, signIn("fail", me.error.message, me.error.hint)];
  const who = me.value.displayName ?? me.value.name ?? "an unnamed user";
  return [...checks, signIn("ok", `signed in to ${client.value.site} as ${who}`)];
}
