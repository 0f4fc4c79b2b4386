import type { Env } from "../core/context.ts";
import { DEFAULT_TIMEOUT_MS, httpTimeoutMs } from "../core/http-policy.ts";

/** Network behaviour of the GitHub client; defaults suit interactive use, tests shrink the delays. */
export interface GitHubSettings {
  /** Per HTTP attempt (`TWIG_MCP_HTTP_TIMEOUT_MS`, default 10 s). */
  timeoutMs: number;
  /** Extra attempts after a 5xx or a dropped connection (`TWIG_MCP_GITHUB_RETRIES`, default 2). */
  retries: number;
  /** Retry n waits n² × this (`TWIG_MCP_GITHUB_RETRY_DELAY_MS`, default 500 ms). */
  retryDelayMs: number;
  /** A rate-limit wait is honoured once, automatically, only when GitHub asks for at most this long. */
  maxRateLimitWaitSeconds: number;
  /** Length of one second of a rate-limit wait (`TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS`; only tests change it). */
  rateLimitSecondMs: number;
}

export const DEFAULT_GITHUB_SETTINGS: GitHubSettings = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  retries: 2,
  retryDelayMs: 500,
  maxRateLimitWaitSeconds: 5,
  rateLimitSecondMs: 1000,
};

export function githubSettings(env: Env): GitHubSettings {
  return {
    timeoutMs: httpTimeoutMs(env),
    retries: intSetting(env.TWIG_MCP_GITHUB_RETRIES, 0, 10) ?? DEFAULT_GITHUB_SETTINGS.retries,
    retryDelayMs: intSetting(env.TWIG_MCP_GITHUB_RETRY_DELAY_MS, 0, 60_000) ?? DEFAULT_GITHUB_SETTINGS.retryDelayMs,
    maxRateLimitWaitSeconds: DEFAULT_GITHUB_SETTINGS.maxRateLimitWaitSeconds,
    rateLimitSecondMs:
      intSetting(env.TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS, 0, 1000) ?? DEFAULT_GITHUB_SETTINGS.rateLimitSecondMs,
  };
}

function intSetting(value: string | undefined, min: number, max: number): number | null {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}
