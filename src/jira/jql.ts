/**
 * JQL built from tool arguments. Every value is a quoted string literal with JQL's escapes, so no
 * argument can end its literal early and add clauses (twig interpolated them raw, §10 item 3).
 */

const ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * What JQL cannot hold raw inside a quoted string: the quote and backslash, control characters,
 * Unicode non-characters, and lone surrogates (no UTF-8 form); a valid surrogate pair passes through.
 */
const NEEDS_ESCAPE =
  /["\\\u0000-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** JQL's string-literal escapes: `\"`, `\\`, `\n`, `\r`, `\t`, `\uXXXX`. */
export function quoteJqlString(value: string): string {
  const escaped = value.replace(
    NEEDS_ESCAPE,
    (ch) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `"${escaped}"`;
}

/** Jira project keys: a letter, then letters, digits or `_` (at least two characters). */
export const PROJECT_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+$/;

/** Issue keys: a project key, `-`, a number. */
export const ISSUE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+-[0-9]+$/;

/** The key upper-cased (`shop-7` → `SHOP-7`), or `null` when it does not match `pattern`. */
function normalizeKey(value: string, pattern: RegExp): string | null {
  const trimmed = value.trim();
  return pattern.test(trimmed) ? trimmed.toUpperCase() : null;
}

export const normalizeProjectKey = (value: string) => normalizeKey(value, PROJECT_KEY_PATTERN);
export const normalizeIssueKey = (value: string) => normalizeKey(value, ISSUE_KEY_PATTERN);

export interface IssueFilter {
  /** A normalized project key. */
  project: string;
  status?: string | undefined;
  /** `me` (any case) or `currentUser()` means the caller; `unassigned` means no assignee. */
  assignee?: string | undefined;
}

export type AssigneeFilter = { kind: "current-user" } | { kind: "unassigned" } | { kind: "user"; name: string };

export function assigneeFilter(value: string): AssigneeFilter {
  const trimmed = value.trim();
  const lower = trimmed.toLowerCase();
  if (lower === "me" || lower === "currentuser()") return { kind: "current-user" };
  if (lower === "unassigned") return { kind: "unassigned" };
  return { kind: "user", name: trimmed };
}

/**
 * `project = "SHOP" AND status = "In Progress" AND assignee = currentUser() ORDER BY updated DESC`
 * (clauses in twig's order; empty filters are left out).
 */
export function buildSearchJql(filter: IssueFilter): string {
  const clauses = [`project = ${quoteJqlString(filter.project)}`];
  const status = filter.status?.trim();
  if (status) clauses.push(`status = ${quoteJqlString(status)}`);
  const assignee = filter.assignee?.trim();
  if (assignee) {
    const who = assigneeFilter(assignee);
    if (who.kind === "current-user") clauses.push("assignee = currentUser()");
    else if (who.kind === "unassigned") clauses.push("assignee IS EMPTY");
    else clauses.push(`assignee = ${quoteJqlString(who.name)}`);
  }
  return `${clauses.join(" AND ")} ORDER BY updated DESC`;
}

/** `key in ("SHOP-1", "SHOP-2")`: the issues named, in one search. `keys` are normalized issue keys. */
export function buildKeysJql(keys: readonly string[]): string {
  return `key in (${keys.map(quoteJqlString).join(", ")})`;
}
