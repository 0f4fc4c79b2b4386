import type { Context } from "../../core/context.ts";
import { GitHubClients } from "../../github/client.ts";
import { type JiraClientOptions, JiraClients } from "../../jira/client.ts";

/** `ctx` with the remote services' clients, built on first use; copies share them, credentials come from `this`. */
export function withServices(ctx: Context) {
  const github = new GitHubClients();
  const jira = new JiraClients();
  return {
    ...ctx,
    github(this: Context, host: string) {
      return github.connect(this, host);
    },
    /** The Jira client for `$JIRA_HOST` and its credentials; `options` tune retries (tests). */
    jira(this: Context, options?: JiraClientOptions) {
      return jira.get(this, options);
    },
  };
}

export type ServiceContext = ReturnType<typeof withServices>;
