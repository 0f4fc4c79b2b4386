import * as v from "valibot";
import { githubGet } from "../../github/request.ts";
import type { ServiceContext } from "../../services/services.ts";
import { type Check, checker } from "./report.ts";

const ONLINE_TIMEOUT_MS = 15_000;

/** One authenticated request to GitHub (`GET /user`), through the same client the tools use. */
export async function checkGitHubOnline(ctx: ServiceContext, host: string): Promise<Check> {
  const result = checker("github-online", "GitHub sign-in");
  const connection = await ctx.github(host);
  if (!connection.ok) return result("fail", connection.error.message, connection.error.hint);
  const response = await githubGet(
    {
      connection: connection.value,
      target: { host, owner: "", repo: "" },
      signal: AbortSignal.timeout(ONLINE_TIMEOUT_MS),
      now: ctx.now,
    },
    "GET /user",
    {},
    v.object({ login: v.string() }),
    "the signed-in user",
  );
  if (!response.ok) return result("fail", response.error.message, response.error.hint);
  return result("ok", `signed in to ${host} as ${response.value.data.login}`);
}

/** One authenticated request to Jira (`GET /rest/api/2/myself`), through the same client the tools use. */
export async function checkJiraOnline(ctx: ServiceContext): Promise<Check> {
  const result = checker("jira-online", "Jira sign-in");
  const client = await ctx.jira();
  if (!client.ok) return result("fail", client.error.message, client.error.hint);
  const me = await client.value.request(
    {
      method: "GET",
      path: "/rest/api/2/myself",
      schema: v.object({ displayName: v.optional(v.string()), name: v.optional(v.string()) }),
    },
    AbortSignal.timeout(ONLINE_TIMEOUT_MS),
  );
  if (!me.ok) return result("fail", me.error.message, me.error.hint);
  const who = me.value.displayName ?? me.value.name ?? "an unnamed user";
  return result("ok", `signed in to ${client.value.site} as ${who}`);
}
