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
