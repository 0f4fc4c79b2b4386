import { inline, plainText, quoted } from "../core/plain-text.ts";
import { checkBranchName } from "../git/refname.ts";
import { STORED_JIRA_KEY } from "../twig/schemas.ts";

/** Others' text in a prompt (sent as the *user's* message) must read as data: one line, quoted or fenced. */

/** A branch name: as it is when git would accept it, quoted (and marked) when not. */
export function branchText(name: string): string {
  return checkBranchName(name) === null ? inline(name, 300) : `${quoted(name, 80)} (not a valid branch name)`;
}

/** A `jira_issue` from state: as it is when twig could have written it, quoted (and marked) when not. */
export function jiraKeyText(key: string): string {
  return STORED_JIRA_KEY.test(key) ? key : `${quoted(key, 80)} (not a Jira key)`;
}

/** `text` in a Markdown fence longer than any backtick run inside it, so nothing in it closes the fence. */
export function fenced(text: string): string {
  const clean = plainText(text);
  const longest = (clean.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${clean.endsWith("\n") ? clean : `${clean}\n`}${fence}`;
}

/** `Heading: a, b` with at most `max` items, then how many were left out; nothing when there are none. */
export function listLine(heading: string, items: readonly string[], max = 50): string[] {
  if (items.length === 0) return [];
  const more = items.length > max ? [`… and ${items.length - max} more`] : [];
  return [`${heading}: ${[...items.slice(0, max), ...more].join(", ")}`];
}

export { inline, quoted };
