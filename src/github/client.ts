import pkg from "../../package.json" with { type: "json" };
import type { Context, Env } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { hostOf } from "../core/http-policy.ts";
import type { Logger } from "../core/log.ts";
import { trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readSettings } from "../core/settings.ts";
import { sha256Hex } from "../core/sha256.ts";
import { type GitHubCredential, resolveGitHubCredential } from "../creds/credentials.ts";
import { GITHUB_COM, isGheCom, parseHostSetting } from "../creds/github-hosts.ts";
import { createGitHubFetch, EtagCache } from "./http.ts";

/** The REST API root for a GitHub host; `GITHUB_API_URL` (the GitHub Actions convention) wins. */
export function apiBaseUrl(host: string, env: Env): Result<string> {
  const override = env.GITHUB_API_URL?.trim();
  if (override) {
    const url = URL.parse(override);
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username !== "" || url.password !== "") {
      const hint =
        "Set GITHUB_API_URL to the API root (for example https://api.github.com or https://HOST/api/v3) without credentials in it, or unset it.";
      return err(toolError("network_error", "GITHUB_API_URL is not a usable http(s) URL", hint));
    }
    return ok(trimChars(`${url.origin}${url.pathname}`, "/"));
  }
  if (host === GITHUB_COM) return ok("https://api.github.com");
  if (isGheCom(host)) return ok(`https://api.${host}`);
  return ok(`https://${host}/api/v3`);
}

/** The API root and token for `host`; generic token variables follow only a destination the user chose. */
export async function resolveGitHubAccess(
  ctx: Pick<Context, "env" | "home" | "files" | "platform" | "log">,
  host: string,
): Promise<Result<{ baseUrl: string; credential: GitHubCredential }>> {
  const base = apiBaseUrl(host, ctx.env);
  if (!base.ok) return base;
  const credential = await resolveGitHubCredential(ctx, {
    host,
    apiHost: hostOf(base.value),
    explicitDestination: Boolean(ctx.env.GITHUB_API_URL?.trim()) || parseHostSetting(ctx.env.GH_HOST) === host,
  });
  return credential.ok ? ok({ baseUrl: base.value, credential: credential.value }) : err(credential.error);
}

/** Network behaviour of the GitHub client; tests shrink the delays. Retry n waits n² × `retryDelayMs`. */
function githubSettings(ctx: Pick<Context, "env" | "log">) {
  const settings = readSettings(ctx.env, (message) => ctx.log.warn(message));
  return {
    timeoutMs: settings.httpTimeoutMs,
    retries: settings.githubRetries,
    retryDelayMs: settings.githubRetryDelayMs,
    maxRateLimitWaitSeconds: 5,
    rateLimitSecondMs: settings.githubRateLimitSecondMs,
  };
}

/** Octokit with its retry and throttling plugins, imported on the first GitHub call, not at start-up. */
export async function loadOctokit() {
  const [{ Octokit }, { retry }, { throttling }, { default: Bottleneck }] = await Promise.all([
    import("@octokit/rest"),
    import("@octokit/plugin-retry"),
    import("@octokit/plugin-throttling"),
    import("bottleneck/light.js"),
  ]);
  return { Octokit: Octokit.plugin(retry, throttling), Bottleneck };
}

type Loaded = Awaited<ReturnType<typeof loadOctokit>>;
type GitHubOctokit = InstanceType<Loaded["Octokit"]>;

/**
 * The plugins' options: client errors never improve on retry (403 and 429 only as rate limits); a rate-limit wait is
 * honoured once if short, else `rate_limited`; GitHub's concurrency ceiling, not the plugin's ten, for one round trip.
 */
export function resilienceOptions(
  Bottleneck: Loaded["Bottleneck"],
  settings: ReturnType<typeof githubSettings>,
  log: Logger,
  maxInFlight = 100,
) {
  const waitOnce =
    (kind: "primary" | "secondary") =>
    (seconds: number, options: { method?: string; url?: string }, _octokit: unknown, retryCount: number) => {
      const wanted = retryCount === 0 && seconds <= settings.maxRateLimitWaitSeconds;
      log.warn(
        `GitHub ${kind} rate limit on ${options.method ?? "GET"} ${options.url ?? ""}: ` +
          (wanted ? `retrying once in ${seconds} s` : `not retrying (GitHub asks for ${seconds} s)`),
      );
      return wanted;
    };
  return {
    retry: {
      retries: settings.retries,
      retryAfterBaseValue: settings.retryDelayMs,
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
    throttle: {
      global: new Bottleneck.Group({ maxConcurrent: Math.max(1, maxInFlight) }),
      retryAfterBaseValue: settings.rateLimitSecondMs,
      onRateLimit: waitOnce("primary"),
      onSecondaryRateLimit: waitOnce("secondary"),
      // GraphQL queries count as writes to the plugin, paced one a second; this server only reads.
      write: new Bottleneck.Group({ maxConcurrent: Math.max(1, maxInFlight) }),
    },
  };
}

export interface GitHubConnection {
  octokit: GitHubOctokit;
  baseUrl: string;
  credentialSource: string;
  /** Only for scrubbing messages; never printed. */
  secrets: readonly string[];
}

/** One Octokit per (API root, token), one shared ETag cache; credentials resolved per call: fixes need no restart. */
export class GitHubClients {
  readonly #octokits = new Map<string, Promise<GitHubOctokit>>();
  readonly #etags = new EtagCache();

  async connect(ctx: Context, host: string): Promise<Result<GitHubConnection>> {
    const access = await resolveGitHubAccess(ctx, host);
    if (!access.ok) return access;
    const { baseUrl, credential } = access.value;
    const { token, source } = credential;
    const tokenId = sha256Hex(token).slice(0, 16);
    const key = `${baseUrl}\u0000${tokenId}`;
    let octokit = this.#octokits.get(key);
    if (octokit === undefined) {
      // A promise, so that concurrent first calls share one client.
      octokit = loadOctokit().then(({ Octokit, Bottleneck }) => {
        const { log } = ctx;
        const settings = githubSettings(ctx);
        return new Octokit({
          ...resilienceOptions(Bottleneck, settings, log),
          auth: token,
          baseUrl,
          userAgent: `twig-mcp/${pkg.version}`,
          // Octokit reports every failed request itself, a failed connection as "500 with id UNKNOWN";
          // errors become tool results instead, and the fetch below logs what really failed.
          log: { debug: () => {}, info: () => {}, warn: (message) => log.warn(`octokit: ${message}`), error: () => {} },
          request: {
            fetch: createGitHubFetch(ctx.fetch, { timeoutMs: settings.timeoutMs, etags: this.#etags, tokenId, log }),
          },
        });
      });
      this.#octokits.set(key, octokit);
      // The first thing to know on a 401; `source` names a file or variable, and `apiBaseUrl` refuses credentials.
      ctx.log.info(`GitHub ${baseUrl}: using the token from ${source}`);
    }
    return ok({ octokit: await octokit, baseUrl, credentialSource: source, secrets: [token] });
  }
}
