import * as v from "valibot";
import { checkBranchName } from "../git/refname.ts";

/**
 * A branch name as git accepts it. Checked before the name is used anywhere, so a value such as
 * `../../etc/passwd` or `-x` is refused as `invalid_params` instead of reaching a path or a URL.
 */
export const BranchNameSchema = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const reason = checkBranchName(dataset.value);
    if (reason !== null) addIssue({ message: `not a valid git branch name (${reason})` });
  }),
);

export const NoParamsSchema = v.object({});

/** The `repo` selector of repository-scoped tools and of prompts. */
export const REPO_PARAM_DESCRIPTION = "A list_repositories name or absolute path.";

/** The marker {@link unpublished} leaves in a converted JSON Schema for the wire layer to act on. */
export const UNPUBLISHED = "unpublished";

/**
 * Pipe item: the named constraints of this schema are still checked but left out of the published
 * JSON Schema. For bounds that only stop pathological input (a 4 KiB path, a PR number beyond
 * 2³²) and character rules a model does not trip over, the schema a model reads on every turn
 * gains nothing from them; a violation is still refused as `invalid_params` with the reason.
 * `field` leaves the whole field out of the published schema (an optional result field that
 * replies explain themselves, such as the reply budget's `truncated`), still checked server-side.
 */
export function unpublished<TInput>(
  ...keywords: ("minLength" | "maxLength" | "minimum" | "maximum" | "pattern" | "field")[]
): v.MetadataAction<TInput, { readonly [UNPUBLISHED]: readonly string[] }> {
  return v.metadata<TInput, { readonly [UNPUBLISHED]: readonly string[] }>({ [UNPUBLISHED]: keywords });
}
