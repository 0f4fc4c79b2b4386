import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Context } from "../../src/core/context.ts";
import { toolError } from "../../src/core/errors.ts";
import { err, type Result } from "../../src/core/result.ts";
import type { JiraClientOptions } from "../../src/jira/client.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";

export const EMAIL = "alice@example.com";
export const API_TOKEN = "atatt-very-secret-token-123";
export const BASIC_AUTH = `Basic ${Buffer.from(`${EMAIL}:${API_TOKEN}`).toString("base64")}`;

export interface JiraTestContext {
  ctx: ServiceContext;
  home: string;
  cleanup(): void;
}

/**
 * A ServiceContext with a throwaway home (so the developer's ~/.netrc is never read), the given
 * environment, an optional `.netrc`, and no repository unless one is passed. `client` tunes the
 * Jira client the tools get from `ctx.jira()` (a recorded sleep instead of real retry waits).
 */
export function jiraContext(
  options: { env?: Record<string, string>; netrc?: string; repo?: Result<string>; client?: JiraClientOptions } = {},
): JiraTestContext {
  const home = mkdtempSync(join(tmpdir(), "twig-mcp-jira-"));
  if (options.netrc !== undefined) writeFileSync(join(home, ".netrc"), options.netrc, { mode: 0o600 });
  const env = options.env ?? {};
  const ctx = createTestContext({
    home,
    env,
    dirs: twigDirs(env, "linux", home),
    repo: options.repo ?? err(toolError("no_repo", "twig-mcp was started outside a git repository")),
  });
  const { client } = options;
  const tuned: ServiceContext =
    client === undefined
      ? ctx
      : {
          ...ctx,
          jira(this: Context, given?: JiraClientOptions) {
            return ctx.jira.call(this, given ?? client);
          },
        };
  return { ctx: tuned, home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Retry waits recorded instead of slept, so retry tests take no wall-clock time. */
export function recordingSleep(): { waits: number[]; options: JiraClientOptions } {
  const waits: number[] = [];
  return {
    waits,
    options: {
      sleep: async (ms, signal) => {
        waits.push(ms);
        if (signal.aborted) throw signal.reason;
      },
    },
  };
}

export function never(): AbortSignal {
  return new AbortController().signal;
}
