import { describe, expect, test } from "bun:test";
import { DEFAULT_MAX_REPLY_TOKENS, parseSetting, readSettings } from "../../src/core/settings.ts";

const DEFAULTS = {
  httpTimeoutMs: 10_000,
  githubRetries: 2,
  githubRetryDelayMs: 500,
  githubRateLimitSecondMs: 1000,
  maxReplyTokens: DEFAULT_MAX_REPLY_TOKENS,
};

describe("settings from the environment", () => {
  test("unset or blank: the defaults, without a warning", () => {
    const warnings: string[] = [];
    expect(readSettings({}, (m) => warnings.push(m))).toEqual(DEFAULTS);
    expect(
      readSettings({ TWIG_MCP_HTTP_TIMEOUT_MS: " ", TWIG_MCP_GITHUB_RETRIES: "" }, (m) => warnings.push(m)),
    ).toEqual(DEFAULTS);
    expect(warnings).toEqual([]);
  });

  test("whole numbers in range are taken, blanks around them allowed", () => {
    const env = {
      TWIG_MCP_HTTP_TIMEOUT_MS: " 600000 ",
      TWIG_MCP_GITHUB_RETRIES: "0",
      TWIG_MCP_GITHUB_RETRY_DELAY_MS: "60000",
      TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS: "1",
      TWIG_MCP_MAX_REPLY_TOKENS: "0",
    };
    expect(readSettings(env)).toEqual({
      httpTimeoutMs: 600_000,
      githubRetries: 0,
      githubRetryDelayMs: 60_000,
      githubRateLimitSecondMs: 1,
      maxReplyTokens: 0,
    });
  });

  test("a value out of range or not a whole number: the default, and one warning naming the variable", () => {
    const env = {
      TWIG_MCP_HTTP_TIMEOUT_MS: "0",
      TWIG_MCP_GITHUB_RETRIES: "11",
      TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1.5",
      TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS: "-1",
      TWIG_MCP_MAX_REPLY_TOKENS: "9999999999\u001b[2J",
    };
    const warnings: string[] = [];
    expect(readSettings(env, (m) => warnings.push(m))).toEqual(DEFAULTS);
    expect(warnings.map((m) => m.slice(0, m.indexOf("=")))).toEqual(Object.keys(env).map((name) => `Ignoring ${name}`));
    expect(warnings[0]).toBe("Ignoring TWIG_MCP_HTTP_TIMEOUT_MS=0: expected 1..600000; using 10000");
    expect(warnings.join("\n")).not.toContain("\u001b");
  });

  test("read once: the same environment gives the same settings and warns once", () => {
    const env = { TWIG_MCP_GITHUB_RETRIES: "lots" };
    const warnings: string[] = [];
    const first = readSettings(env, (m) => warnings.push(m));
    expect(readSettings(env, (m) => warnings.push(m))).toBe(first);
    expect(warnings).toHaveLength(1);
  });

  test("a flag's value is checked against the same range", () => {
    expect(parseSetting("maxReplyTokens", "40000")).toBe(40_000);
    expect(parseSetting("httpTimeoutMs", "0")).toBeNull();
    expect(parseSetting("githubRetries", "10")).toBe(10);
  });
});
