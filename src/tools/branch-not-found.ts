import { toolError } from "../core/errors.ts";
import { printable } from "../core/plain-text.ts";
import { err } from "../core/result.ts";
import { closest } from "../core/suggest.ts";

/**
 * Names compared for a did-you-mean. A hostile clone can hold millions of refs or state entries;
 * past this many the suggestion is skipped for the rest, and the error stays the same.
 */
const MAX_CANDIDATES = 5_000;

/** A branch argument is repeated up to 300 characters: any real name, never a payload. */
const SHOWN_CHARS = 300;

/**
 * The `not_found` error for a branch argument, with the closest of `candidates` (the branches the
 * tool would have accepted: tracked, local, or both) as a did-you-mean, the way a mistyped tool or
 * argument name gets one.
 */
export function branchNotFound(
  branch: string,
  where: string,
  candidates: Iterable<string>,
  hint = "Use `list_branches` to see tracked branches.",
) {
  const names: string[] = [];
  for (const name of candidates) {
    if (names.length === MAX_CANDIDATES) break;
    if (name !== branch) names.push(name);
  }
  const guess = closest(branch, names);
  const advice = guess === null ? "" : `. Did you mean '${printable(guess, SHOWN_CHARS)}'?`;
  return err(toolError("not_found", `Branch '${printable(branch, SHOWN_CHARS)}' not found in ${where}${advice}`, hint));
}
