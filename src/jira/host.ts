import { type ToolError, toolError } from "../core/errors.ts";
import { trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";

/**
 * twig's `ensure_url_scheme` (reference §7.1): turns `$JIRA_HOST` into the base URL every Jira
 * request starts with. Bare hosts get `https://`, a malformed `http:/x` becomes `https://x`, URLs
 * with a real scheme and host are kept, and the serialization drops a root-only path (`/`).
 * The error values are twig's messages.
 */
export function ensureUrlScheme(input: string): Result<string, string> {
  const trimmed = input.trim();
  if (trimmed === "") return err("Host cannot be empty");
  if (/^https?:(?!\/\/)/i.test(trimmed)) return withHttpsPrefix(trimmed.replace(/^https?:\/*/i, ""));
  const parsed = URL.parse(trimmed);
  if (parsed !== null && parsed.protocol.length - 1 > 1 && parsed.hostname !== "") return ok(serialize(parsed));
  return withHttpsPrefix(trimmed);
}

/** Step 4 of §7.1: drop a leading `http:`/`https:` label, then read the text as an `https://` URL. */
function withHttpsPrefix(text: string): Result<string, string> {
  const rest = /^https?:\/*(?!\/)([\s\S]+)$/i.exec(text)?.[1] ?? text;
  const parsed = URL.parse(`https://${rest}`);
  if (parsed === null) return err(`Failed to parse URL: '${text}'. Ensure it has a valid scheme.`);
  return ok(serialize(parsed));
}

/**
 * scheme `://` [userinfo `@`] host [`:`port] + path unless it is exactly `/` + `?query` + `#fragment`.
 * WHATWG `href` already drops default ports, lowercases and punycodes the host, and keeps an empty
 * `?` or `#`; only the root path has to go (userinfo cannot hold a raw `/`, `?` or `#`).
 */
function serialize(url: URL): string {
  return url.pathname === "/" ? url.href.replace(/^([^:]+:\/\/[^/?#]*)\//, "$1") : url.href;
}

/**
 * twig's `normalize_host` (§5.3): the netrc machine name for a base URL. Strips every leading
 * `https://`, then every leading `http://`, then every trailing `/`; ports and paths stay.
 */
export function normalizeHost(baseUrl: string): string {
  return trimChars(baseUrl.replace(/^(?:https:\/\/)*(?:http:\/\/)*/, ""), "/");
}

/** Where requests go: the base URL without userinfo, with no trailing `/` so paths join cleanly. */
export interface JiraBase {
  /** The §7.1 base URL (also the identity used for caching). */
  baseUrl: string;
  /** `scheme://host[:port][/path]` to which `/rest/api/...` is appended. */
  apiRoot: string;
  /** Lowercased host name without port, e.g. `company.atlassian.net`. */
  hostname: string;
  /** The base URL safe to show: userinfo removed. */
  display: string;
}

/**
 * Checks that a §7.1 base URL can carry REST requests. twig concatenates blindly, so a query or
 * fragment in `$JIRA_HOST` silently breaks every request; here it is a clear configuration error.
 */
export function jiraBase(baseUrl: string): Result<JiraBase, string> {
  const url = URL.parse(baseUrl);
  if (url === null) return err(`Failed to parse URL: '${baseUrl}'. Ensure it has a valid scheme.`);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return err(`JIRA_HOST must be an http(s) URL, not ${url.protocol.slice(0, -1)}://`);
  }
  if (url.search !== "" || url.hash !== "" || baseUrl.includes("?") || baseUrl.includes("#")) {
    return err("JIRA_HOST must not contain a query (`?…`) or fragment (`#…`)");
  }
  const path = trimChars(url.pathname, "/");
  const apiRoot = `${url.protocol}//${url.host}${path}`;
  return ok({ baseUrl, apiRoot, hostname: url.hostname, display: apiRoot });
}

/** Jira Cloud sites live under `atlassian.net`; anything else may be Server or Data Center. */
export function isAtlassianCloudHost(hostname: string): boolean {
  return hostname.endsWith(".atlassian.net");
}

export const JIRA_HOST_FORM =
  "Set JIRA_HOST to the Jira site: JIRA_HOST=acme.atlassian.net for Cloud, or " +
  "JIRA_HOST=https://jira.example.com (with its context path, e.g. https://jira.example.com/jira) for Data Center.";

/** A host name or IP address with an optional port, as a person types it: letters, digits, `.`, `-`. */
const HOST_AND_PORT =
  /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.?)(?::[0-9]{1,5})?$/;

/** Path segments of Jira's own pages: a pasted browser address ends where one of these starts. */
const UI_SEGMENTS = new Set(
  "browse secure projects issues plugins servicedesk rest login.jsp dashboard jira".split(" "),
);

/**
 * `$JIRA_HOST` checked before any request is built. twig (§7.1) accepts nearly anything and every
 * request then fails obscurely; here a value that cannot name a site is an `invalid_config` error
 * with the expected form, and an address pasted from the browser is reduced to the site: to the
 * bare host on Cloud (its sites have no context path), and to the context path on Data Center
 * (what precedes Jira's own page segments such as `/browse/` or `/secure/`).
 */
export function checkJiraHost(raw: string): Result<{ base: JiraBase; note: string | null }, ToolError> {
  const text = raw.trim();
  const invalid = (why: string) => err(toolError("invalid_config", `JIRA_HOST ${why}`, JIRA_HOST_FORM));
  if (text === "") return invalid("is empty");
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(text)) return invalid("contains a space or a control character");
  const [prefix, scheme = ""] = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text) ?? [];
  if (prefix && !/^https?$/i.test(scheme)) return invalid(`must be an http(s) address, not ${scheme.toLowerCase()}://`);
  const afterScheme = prefix ? text.slice(prefix.length) : text.replace(/^https?:\/*/i, "");
  // The authority's host and port, after any userinfo (up to its last `@`).
  const hostAndPort = /^(?:[^/?#]*@)?([^/?#]*)/.exec(afterScheme)?.[1] ?? "";
  if (hostAndPort === "") return invalid("has no host name");
  if (!HOST_AND_PORT.test(hostAndPort)) {
    return invalid("has characters that are not allowed in a host name (letters, digits, '.', '-' and a :port)");
  }
  const url = ensureUrlScheme(text);
  if (!url.ok) return invalid("cannot be read as an address");
  // Not http(s) cannot come out of the checks above; jiraBase refuses it all the same.
  const parsed = URL.parse(url.value);
  if (parsed === null) return invalid("cannot be read as an address");
  const cloud = isAtlassianCloudHost(parsed.hostname);
  const segments = parsed.pathname.split("/").filter((segment) => segment !== "");
  const ui = cloud
    ? 0
    : segments.findIndex(
        (segment, index) =>
          UI_SEGMENTS.has(segment.toLowerCase()) && (segment !== "jira" || segments[index + 1] === "software"),
      );
  const kept = ui === -1 ? segments : segments.slice(0, ui);
  const dropped = kept.length !== segments.length || parsed.search !== "" || parsed.hash !== "";
  if (dropped) Object.assign(parsed, { pathname: kept.join("/"), search: "", hash: "" });
  const base = jiraBase(dropped ? serialize(parsed) : url.value);
  if (!base.ok) return invalid("cannot be read as an address");
  const note = dropped
    ? `JIRA_HOST looks like an address copied from the browser; using the ${cloud ? "Cloud site" : "site"} ${base.value.display}`
    : null;
  return ok({ base: base.value, note });
}
