import { type ToolError, toolError } from "../core/errors.ts";
import { ALL_CONTROLS, trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";

/** twig's `normalize_host`, a base URL's netrc machine: leading `https://`s, then `http://`s, and trailing `/`s off. */
export function normalizeHost(baseUrl: string): string {
  return trimChars(baseUrl.replace(/^(?:https:\/\/)*(?:http:\/\/)*/, ""), "/");
}

/** `baseUrl` names the netrc machine (twig's `ensure_url_scheme`); `apiRoot` has no userinfo and no trailing `/`. */
export type JiraBase = { baseUrl: string; apiRoot: string; hostname: string };

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

const SPACE_OR_CONTROL = new RegExp(`[\\s${ALL_CONTROLS}]`);

/** Path segments of Jira's own pages: a pasted browser address ends where one of these starts. */
const UI_SEGMENTS = new Set(
  "browse secure projects issues plugins servicedesk rest login.jsp dashboard jira".split(" "),
);

/** `$JIRA_HOST` checked up front (twig's fail obscurely later); a browser address becomes the site, a bare host https. */
export function checkJiraHost(raw: string): Result<{ base: JiraBase; note: string | null }, ToolError> {
  const text = raw.trim();
  const invalid = (why: string) => err(toolError("invalid_config", `JIRA_HOST ${why}`, JIRA_HOST_FORM));
  if (text === "") return invalid("is empty");
  if (SPACE_OR_CONTROL.test(text)) return invalid("contains a space or a control character");
  const [prefix, scheme = ""] = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text) ?? [];
  if (prefix && !/^https?$/i.test(scheme)) return invalid(`must be an http(s) address, not ${scheme.toLowerCase()}://`);
  const afterScheme = prefix ? text.slice(prefix.length) : text.replace(/^https?:\/*/i, "");
  // The authority's host and port, after any userinfo (up to its last `@`).
  const hostAndPort = /^(?:[^/?#]*@)?([^/?#]*)/.exec(afterScheme)?.[1] ?? "";
  if (hostAndPort === "") return invalid("has no host name");
  if (!HOST_AND_PORT.test(hostAndPort)) {
    return invalid("has characters that are not allowed in a host name (letters, digits, '.', '-' and a :port)");
  }
  const url = URL.parse(prefix ? text : `https://${afterScheme}`);
  if (url === null) return invalid("cannot be read as an address");
  const cloud = isAtlassianCloudHost(url.hostname);
  const segments = url.pathname.split("/").filter((segment) => segment !== "");
  // A Cloud site has no path of its own: all of it goes.
  const ui = segments.findIndex(
    (segment, index) =>
      cloud || (UI_SEGMENTS.has(segment.toLowerCase()) && (segment !== "jira" || segments[index + 1] === "software")),
  );
  const kept = ui === -1 ? segments : segments.slice(0, ui);
  const dropped = kept.length !== segments.length || url.search !== "" || url.hash !== "";
  if (dropped) url.pathname = kept.join("/");
  Object.assign(url, { search: "", hash: "" });
  const baseUrl = url.pathname === "/" ? url.href.replace(/^([^:]+:\/\/[^/?#]*)\//, "$1") : url.href;
  const apiRoot = `${url.protocol}//${url.host}${trimChars(url.pathname, "/")}`;
  const note = dropped
    ? `JIRA_HOST looks like an address copied from the browser; using the ${cloud ? "Cloud site" : "site"} ${apiRoot}`
    : null;
  return ok({ base: { baseUrl, apiRoot, hostname: url.hostname }, note });
}
