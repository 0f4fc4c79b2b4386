import * as v from "valibot";
import { checkBranchName } from "../git/refname.ts";

/** A branch name as git accepts it, checked first: `../../etc/passwd` or `-x` never reach a path. */
export const BranchNameSchema = v.pipe(
  v.string(),
  v.check(
    (name) => checkBranchName(name) === null,
    (issue) => `not a valid git branch name (${checkBranchName(issue.input)})`,
  ),
);

export const NoParamsSchema = v.object({});

export function integerIn(min: number, max: number) {
  return v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
}

/** The `repo` selector of repository-scoped tools and of prompts. */
export const REPO_PARAM_DESCRIPTION = "A list_repositories name or absolute path.";

/** The marker {@link unpublished} leaves in a converted JSON Schema for the wire layer to act on. */
export const UNPUBLISHED = "unpublished";

/**
 * Pipe item: the named constraints are checked but left out of the published JSON Schema, which a
 * model reads every turn (bounds against pathological input, rules a model does not trip over).
 * `field` leaves the whole field out (an optional result field its reply explains).
 */
export function unpublished<TInput>(
  ...keywords: ("minLength" | "maxLength" | "minimum" | "maximum" | "pattern" | "field")[]
): v.MetadataAction<TInput, { readonly [UNPUBLISHED]: readonly string[] }> {
  return v.metadata<TInput, { readonly [UNPUBLISHED]: readonly string[] }>({ [UNPUBLISHED]: keywords });
}
