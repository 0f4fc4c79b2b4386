/**
 * The server's own settings from the environment, each a whole number in a range, parsed by one schema and read once
 * per environment: a value outside its range is ignored with a warning, a blank one silently, and the default used.
 */
import * as v from "valibot";
import type { Env } from "./context.ts";
import { clip, scrubControl } from "./plain-text.ts";

/** Claude Code refuses a tool result over 25,000 tokens by default (`MAX_MCP_OUTPUT_TOKENS`); this leaves room. */
export const DEFAULT_MAX_REPLY_TOKENS = 20_000;
export const MAX_REPLY_TOKENS_ENV = "TWIG_MCP_MAX_REPLY_TOKENS";

const SETTINGS = {
  /** Per attempt (and, for a job log, between two chunks). */
  httpTimeoutMs: { name: "TWIG_MCP_HTTP_TIMEOUT_MS", min: 1, max: 10 * 60_000, fallback: 10_000 },
  githubRetries: { name: "TWIG_MCP_GITHUB_RETRIES", min: 0, max: 10, fallback: 2 },
  /** Retry n waits n² times this. */
  githubRetryDelayMs: { name: "TWIG_MCP_GITHUB_RETRY_DELAY_MS", min: 0, max: 60_000, fallback: 500 },
  /** What a second of a rate limit's wait lasts: tests shrink it. */
  githubRateLimitSecondMs: { name: "TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS", min: 0, max: 1000, fallback: 1000 },
  maxReplyTokens: { name: MAX_REPLY_TOKENS_ENV, min: 0, max: 999_999_999, fallback: DEFAULT_MAX_REPLY_TOKENS },
};

export type Settings = { readonly [K in keyof typeof SETTINGS]: number };

/** `text` as a value of setting `key` (as a flag may give it): a whole number in its range, else `null`. */
export function parseSetting(key: keyof Settings, text: string): number | null {
  const { min, max } = SETTINGS[key];
  const schema = v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number), v.minValue(min), v.maxValue(max));
  const parsed = v.safeParse(schema, text);
  return parsed.success ? parsed.output : null;
}

const read = new WeakMap<Env, { settings: Settings; warnings: string[] }>();

/** The settings in `env`, parsed on its first read; the first `warn` given hears about each value ignored. */
export function readSettings(env: Env, warn?: (message: string) => void): Settings {
  let entry = read.get(env);
  if (entry === undefined) {
    const warnings: string[] = [];
    const settings = Object.fromEntries(
      Object.entries(SETTINGS).map(([key, { name, min, max, fallback }]) => {
        const raw = env[name];
        if (raw === undefined || raw.trim() === "") return [key, fallback];
        const value = parseSetting(key as keyof Settings, raw);
        if (value === null) {
          warnings.push(`Ignoring ${name}=${clip(scrubControl(raw), 20)}: expected ${min}..${max}; using ${fallback}`);
        }
        return [key, value ?? fallback];
      }),
    ) as Settings;
    entry = { settings, warnings };
    read.set(env, entry);
  }
  if (warn !== undefined) for (const message of entry.warnings.splice(0)) warn(message);
  return entry.settings;
}
