import type { Context } from "../core/context.ts";
import type { Result } from "../core/result.ts";
import { GitHubClients, type GitHubConnection } from "../github/client.ts";
import { type JiraClient, type JiraClientOptions, JiraClients } from "../jira/client.ts";

/** The remote services a tool may use, built on first use; core's Context sits below them. */
export interface Services {
  /** The GitHub client for a web host (`github.com`, an Enterprise host), with its credential. */
  github(this: Context, host: string): Promise<Result<GitHubConnection>>;
  /** The Jira client for `$JIRA_HOST` and its credentials; `options` tune retries (tests). */
  jira(this: Context, options?: JiraClientOptions): Promise<Result<JiraClient>>;
}

export type ServiceContext = Context & Services;

/** `ctx` with its services as own properties: copies share clients; credentials come from `this`. */
export function withServices(ctx: Context): ServiceContext {
  const github = new GitHubClients();
  const jira = new JiraClients();
  return {
    ...ctx,
    github(host) {
      return github.connect(this, host);
    },
    jira(options) {
      return jira.get(this, options);
    },
  };
}
