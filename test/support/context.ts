import type { Context } from "../../src/core/context.ts";
import { silentLogger } from "../../src/core/log.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { type ServiceContext, withServices } from "../../src/tools/shared/context.ts";

/**
 * A context for one test: nothing read from the real environment, logs dropped. Its GitHub and
 * Jira clients read the settings given here; a copy with another `env` needs a context of its own.
 */
export function createTestContext(
  overrides: Partial<Context> & Pick<Context, "home" | "dirs" | "repo">,
): ServiceContext {
  return withServices({
    env: {},
    platform: "linux",
    cwd: process.cwd(),
    files: new CachedFileReader(),
    log: silentLogger,
    fetch: globalThis.fetch,
    now: () => new Date(),
    ...overrides,
  });
}
