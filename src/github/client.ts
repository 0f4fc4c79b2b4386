import pkg from "../../package.json" with { type: "json" };
import type { Context } from "../core/context.ts";
import { err, ok, type Result } from "../core/result.ts";
import { sha256Hex } from "../core/sha256.ts";
import { type GitHubCredential, resolveGitHubCredential } from "../creds/credentials-github.ts";
import { ghHostOverride } from "../creds/github-hosts.ts";
import { apiBaseUrl, apiHostOf } from "./api-base.ts";
import { EtagCache } from "./etag-cache.ts";
import { createGitHubFetch } from "./http.ts";
import { resilientRequest } from "./resilience.ts";
import { type GitHubSettings, githubSettings } from "./settings.ts";

/**
 * Octokit is loaded on the first GitHub call rather than at start-up: a server that is never asked
 * about GitHub never evaluates it.
 */
function loadOctokit() {
  return import("@octokit/rest");
}

type OctokitModule = Awaited<ReturnType<typeof loadOctokit>>;
export type GitHubOctokit = InstanceType<OctokitModule["Octokit"]>;

let octokitModule: Promise<OctokitModule> | null = null;

/** What a tool call needs to talk to GitHub: the client, where it points, and where its token came from. */
export interface GitHubConnection {
  octokit: GitHubOctokit;
  baseUrl: string;
  credential: Pick<GitHubCredential, "source">;
  settings: GitHubSettings;
  /** Only for scrubbing messages; never printed. */
  secrets: readonly string[];
}

const ETAG_MEMO_KEY = "github:etag-cache";

/**
 * Resolves the API base URL and a token for `host`, then returns the Octokit built for that
 * (base URL, token) pair, creating it on first use. Credential failures are not remembered, so a
 * fixed `.netrc` or a newly exported `GH_TOKEN` works on the next call without a restart.
 */
export async function connectGitHub(ctx: Context, host: string): Promise<Result<GitHubConnection>> {
  const base = apiBaseUrl(host, ctx.env);
  if (!base.ok) return base;
  const credential = await resolveGitHubCredential(ctx, {
    host,
    apiHost: apiHostOf(base.value),
    explicitDestination: Boolean(ctx.env.GITHUB_API_URL?.trim()) || ghHostOverride(ctx.env) === host,
  });
  if (!credential.ok) return err(credential.error);
  const settings = githubSettings(ctx.env);
  const octokit = await octokitFor(ctx, base.value, credential.value.token, settings, credential.value.source);
  return ok({
    octokit,
    baseUrl: base.value,
    credential: { source: credential.value.source },
    settings,
    secrets: [credential.value.token],
  });
}

async function octokitFor(
  ctx: Context,
  baseUrl: string,
  token: string,
  settings: GitHubSettings,
  source: string,
): Promise<GitHubOctokit> {
  const tokenId = sha256Hex(token).slice(0, 16);
  const key = `github:octokit:${baseUrl}\u0000${tokenId}`;
  const existing = ctx.memo.get(key) as GitHubOctokit | undefined;
  if (existing) return existing;
  octokitModule ??= loadOctokit();
  const loaded = await octokitModule;
  // A concurrent first call may have built it while the modules loaded.
  const built = ctx.memo.get(key) as GitHubOctokit | undefined;
  if (built) return built;
  const octokit = buildOctokit(ctx, loaded, baseUrl, token, tokenId, settings);
  ctx.memo.set(key, octokit);
  // Which credential won is the first thing to know when GitHub answers 401; the source names a
  // file or variable, never the token.
  ctx.log.info(`GitHub ${withoutUserinfo(baseUrl)}: using the token from ${source}`);
  return octokit;
}

function etagCache(ctx: Context): EtagCache {
  let cache = ctx.memo.get(ETAG_MEMO_KEY) as EtagCache | undefined;
  if (!cache) {
    cache = new EtagCache();
    ctx.memo.set(ETAG_MEMO_KEY, cache);
  }
  return cache;
}

function buildOctokit(
  ctx: Context,
  { Octokit }: OctokitModule,
  baseUrl: string,
  token: string,
  tokenId: string,
  settings: GitHubSettings,
): GitHubOctokit {
  const { log } = ctx;
  const octokit = new Octokit({
    auth: token,
    baseUrl,
    userAgent: `twig-mcp/${pkg.version}`,
    // Octokit reports every failed request itself; we report errors as tool results instead.
    log: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => log.warn(`octokit: ${message}`),
      error: (message: string) => log.debug(`octokit: ${message}`),
    },
    request: {
      fetch: createGitHubFetch({
        fetch: ctx.fetch,
        timeoutMs: settings.timeoutMs,
        etags: etagCache(ctx),
        tokenId,
        log,
      }),
    },
  });
  octokit.hook.wrap("request", resilientRequest({ settings, log }));
  return octokit;
}

/** A `user:password@` written into `GITHUB_API_URL` is never logged. */
function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return "(GITHUB_API_URL)";
  }
}
