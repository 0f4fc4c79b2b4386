import * as v from "valibot";
import { toolError } from "../../core/errors.ts";
import { printable } from "../../core/plain-text.ts";
import { err } from "../../core/result.ts";
import { closeNames, orList } from "../../core/suggest.ts";
import { checkBranchName } from "../../git/refname.ts";

/** A branch name as git accepts it, checked first: `../../etc/passwd` or `-x` never reach a path. */
export const BranchNameSchema = v.pipe(
  v.string(),
  v.check(
    (name) => checkBranchName(name) === null,
    (issue) => `not a valid git branch name (${checkBranchName(issue.input)})`,
  ),
);

/** Names compared for a did-you-mean: a hostile clone can hold millions of refs. */
const MAX_CANDIDATES = 5_000;

/** A branch argument is repeated up to 300 characters: any real name, never a payload. */
const SHOWN_CHARS = 300;

/** The `not_found` error for a branch argument, with the closest of the branches the tool accepts as a did-you-mean. */
export function branchNotFound(
  branch: string,
  where: string,
  candidates: Iterable<string>,
  hint = "Use `list_branches` to see tracked branches.",
) {
  const names = Iterator.from(candidates)
    .filter((name) => name !== branch)
    .take(MAX_CANDIDATES)
    .toArray();
  const guesses = closeNames(branch, names);
  const advice =
    guesses.length === 0 ? "" : `. Did you mean ${orList(guesses, (name) => printable(name, SHOWN_CHARS))}?`;
  return err(toolError("not_found", `Branch '${printable(branch, SHOWN_CHARS)}' not found in ${where}${advice}`, hint));
}

export const NoParamsSchema = v.object({});

export function integerIn(min: number, max: number) {
  return v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
}

/** The `repo` selector of repository-scoped tools and of prompts. */
export const REPO_PARAM_DESCRIPTION = "A list_repositories name or absolute path.";

export const UNPUBLISHED = "unpublished";

/** Pipe item: these constraints (`field`: the field) are checked but left out of the JSON Schema a model reads. */
export function unpublished<TInput>(
  ...keywords: ("minLength" | "maxLength" | "minimum" | "maximum" | "pattern" | "field")[]
): v.MetadataAction<TInput, { readonly [UNPUBLISHED]: readonly string[] }> {
  return v.metadata<TInput, { readonly [UNPUBLISHED]: readonly string[] }>({ [UNPUBLISHED]: keywords });
}
