/**
 * JQL built from tool arguments. Every value is a quoted string literal with JQL's escapes, so no
 * argument can end its literal early and add clauses (twig interpolated them raw, §10 item 3).
 */

/** JQL's string-literal escapes: `\"`, `\\`, `\n`, `\r`, `\t`, `\uXXXX`. */
export function quoteJqlString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    const code = value.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (needsUnicodeEscape(value, i, code)) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A valid surrogate pair passes through as the character it encodes.
      out += value.slice(i, i + 2);
      i++;
    } else out += ch;
  }
  return `${out}"`;
}

/**
 * Characters JQL does not accept raw inside a quoted string (control characters and Unicode
 * non-characters), plus lone surrogates, which have no UTF-8 form.
 */
function needsUnicodeEscape(value: string, i: number, code: number): boolean {
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  if ((code >= 0xfdd0 && code <= 0xfdef) || code === 0xfffe || code === 0xffff) return true;
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = value.charCodeAt(i + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Jira project keys: a letter, then letters, digits or `_` (at least two characters). */
export const PROJECT_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+$/;

/** Issue keys: a project key, `-`, a number. */
export const ISSUE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]+-[0-9]+$/;

/** The key upper-cased, or `null` when it is not a project key. */
export function normalizeProjectKey(value: string): string | null {
  const trimmed = value.trim();
  return PROJECT_KEY_PATTERN.test(trimmed) ? trimmed.toUpperCase() : null;
}

/** The key upper-cased (`shop-7` → `SHOP-7`), or `null` when it is not an issue key. */
export function normalizeIssueKey(value: string): string | null {
  const trimmed = value.trim();
  return ISSUE_KEY_PATTERN.test(trimmed) ? trimmed.toUpperCase() : null;
}

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
