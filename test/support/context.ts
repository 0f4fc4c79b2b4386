import type { Context } from "../../src/core/context.ts";
import { silentLogger } from "../../src/core/log.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";

/** A context for one test: nothing read from the real environment, logs dropped. */
export function createTestContext(overrides: Partial<Context> & Pick<Context, "home" | "dirs" | "repo">): Context {
  return {
    env: {},
    platform: "linux",
    cwd: process.cwd(),
    files: new CachedFileReader(),
    log: silentLogger,
    fetch: globalThis.fetch,
    now: () => new Date(),
    memo: new Map(),
    ...overrides,
  };
}
