import type { Env } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { GITHUB_COM, isGheCom } from "../creds/github-hosts.ts";

/**
 * The REST API root for a GitHub host: `api.github.com` for github.com, `api.<tenant>.ghe.com`
 * for GHE.com, `https://<host>/api/v3` for GitHub Enterprise Server. `GITHUB_API_URL` (the GitHub
 * Actions convention) wins over all of them.
 */
export function apiBaseUrl(host: string, env: Env): Result<string> {
  const override = env.GITHUB_API_URL?.trim();
  if (override) {
    const url = URL.parse(override);
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username !== "" || url.password !== "") {
      return err(
        toolError(
          "network_error",
          "GITHUB_API_URL is not a usable http(s) URL",
          "Set GITHUB_API_URL to the API root (for example https://api.github.com or https://HOST/api/v3) without credentials in it, or unset it.",
        ),
      );
    }
    return ok(`${url.origin}${url.pathname}`.replace(/\/+$/, ""));
  }
  if (host === GITHUB_COM) return ok("https://api.github.com");
  if (isGheCom(host)) return ok(`https://api.${host}`);
  return ok(`https://${host}/api/v3`);
}
