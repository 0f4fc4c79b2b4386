import * as v from "valibot";
import { err, ok, type Result } from "../core/result.ts";
import { type BranchMetadata, describeIssues, u32 } from "./schemas.ts";

/**
 * Branch records in the shapes twig wrote before 0.1.5, when `branches` became a map keyed by
 * name: 0.1.0–0.1.3 kept a `branch_issues` list, 0.1.4 a `branches` list. Current twig cannot load
 * either, but they still say which Jira issue and PR belong to which branch, and a user who asks
 * about a branch the file lists must not hear `not_found`.
 */
const LegacyEntrySchema = v.object({
  branch: v.string(),
  jira_issue: v.nullish(v.string(), null),
  github_pr: v.nullish(u32, null),
  created_at: v.optional(v.string()),
});

const UPGRADE =
  "current twig cannot load this format: to upgrade, move the file aside and run `twig sync`, which links branches again to the Jira keys in their names and to their pull requests";

/** Names the old format in an error, so the user learns what they have and how to move on. */
export function legacyProblem(format: string, problem: string): string {
  return `written in the format of ${format}, and ${problem}; ${UPGRADE}`;
}

/**
 * The branch records of a pre-0.1.5 state file, in file order (a later record for the same branch
 * wins, as twig's own replace-then-append did), or `null` when the file has none of the old shape.
 */
export function legacyBranches(json: Record<string, unknown>): Result<Map<string, BranchMetadata> | null, string> {
  const lists: [string, string, unknown][] = [];
  if (json.branch_issues !== undefined)
    lists.push(["branch_issues", "twig 0.1.0–0.1.3 (`branch_issues`)", json.branch_issues]);
  if (Array.isArray(json.branches)) lists.push(["branches", "twig 0.1.4 (`branches` as a list)", json.branches]);
  if (lists.length === 0) return ok(null);
  const records = new Map<string, BranchMetadata>();
  for (const [field, format, list] of lists) {
    if (!Array.isArray(list)) return err(legacyProblem(format, `${field}: Invalid type: Expected an array`));
    for (const [index, raw] of list.entries()) {
      const entry = v.safeParse(LegacyEntrySchema, raw);
      if (!entry.success) return err(legacyProblem(format, describeIssues(entry.issues, `${field}[${index}]`)));
      const { branch, ...meta } = entry.output;
      records.set(branch, meta);
    }
  }
  return ok(records);
}
