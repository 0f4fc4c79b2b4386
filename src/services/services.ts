import type { Context } from "../core/context.ts";
import type { Result } from "../core/result.ts";
import { GitHubClients, type GitHubConnection } from "../github/client.ts";
import { type JiraClient, type JiraClientOptions, JiraClients } from "../jira/client.ts";

/**
 * The remote services a tool may talk to, built on first use and kept for the process: core's
 * Context cannot name them (core sits below github/ and jira/), so the tool layer's context is
 * core's plus these.
 */
export interface Services {
  /** The GitHub client for a web host (`github.com`, an Enterprise host), with its credential. */
  github(this: Context, host: string): Promise<Result<GitHubConnection>>;
  /** The Jira client for `$JIRA_HOST` and its credentials; `options` tune retries (tests). */
  jira(this: Context, options?: JiraClientOptions): Promise<Result<JiraClient>>;
}

export type ServiceContext = Context & Services;

/**
 * `ctx` with its services. They are own properties, so a copy of the context (`{ ...ctx, repo }`
 * per call) shares the same clients and caches, and each call resolves credentials from the
 * context it is made on (`this`), the way the copy sees the environment.
 */
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
