/** JQL from tool arguments: each value a quoted, escaped literal, so none can add clauses (twig's were raw). */
import { ALL_CONTROLS } from "../core/plain-text.ts";

const ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** What a JQL string cannot hold raw: quote, backslash, controls, non-characters, lone surrogates (no UTF-8 form). */
const NEEDS_ESCAPE = new RegExp(
  `["\\\\${ALL_CONTROLS}\\ufdd0-\\ufdef\\ufffe\\uffff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  "g",
);

export function quoteJqlString(value: string): string {
  const escaped = (ch: string) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return `"${value.replace(NEEDS_ESCAPE, escaped)}"`;
}

export const PROJECT_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+$/;
export const ISSUE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+-[0-9]+$/;

function normalizeKey(value: string, pattern: RegExp): string | null {
  const trimmed = value.trim();
  return pattern.test(trimmed) ? trimmed.toUpperCase() : null;
}

export const normalizeProjectKey = (value: string) => normalizeKey(value, PROJECT_KEY_PATTERN);
export const normalizeIssueKey = (value: string) => normalizeKey(value, ISSUE_KEY_PATTERN);

/** `project = "SHOP" AND status = "In Progress" AND assignee = currentUser() ORDER BY updated DESC`, twig's order. */
export function buildSearchJql(filter: {
  project: string;
  status?: string | undefined;
  assignee?: string | undefined;
}) {
  const clauses = [`project = ${quoteJqlString(filter.project)}`];
  const status = filter.status?.trim();
  if (status) clauses.push(`status = ${quoteJqlString(status)}`);
  // `me` (any case) or `currentUser()` is the caller; `unassigned` is no assignee.
  const assignee = filter.assignee?.trim();
  const lower = assignee?.toLowerCase();
  if (lower === "me" || lower === "currentuser()") clauses.push("assignee = currentUser()");
  else if (lower === "unassigned") clauses.push("assignee IS EMPTY");
  else if (assignee) clauses.push(`assignee = ${quoteJqlString(assignee)}`);
  return `${clauses.join(" AND ")} ORDER BY updated DESC`;
}

export function buildKeysJql(keys: readonly string[]): string {
  return `key in (${keys.map(quoteJqlString).join(", ")})`;
}
