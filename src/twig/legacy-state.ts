import * as v from "valibot";
import { err, ok, type Result } from "../core/result.ts";
import { describeIssueIn } from "./json-errors.ts";
import { type BranchMetadata, BranchMetadataSchema } from "./schemas.ts";

/**
 * Records in the shapes twig wrote before 0.1.5 (a `branch_issues` list, then a `branches` list):
 * current twig cannot load them, but they still link branches to issues and PRs.
 */
const LegacyEntrySchema = v.object({ branch: v.string(), ...BranchMetadataSchema.entries });

const UPGRADE =
  "current twig cannot load this format: to upgrade, move the file aside and run `twig sync`, which links branches again to the Jira keys in their names and to their pull requests";

function legacyProblem(format: string, problem: string): string {
  return `written in the format of ${format}, and ${problem}; ${UPGRADE}`;
}

/** A pre-0.1.5 file's records (a later one for a branch wins, as in twig), or `null` if it has none. */
export function legacyBranches(
  json: Record<string, unknown>,
  text: string,
): Result<Map<string, BranchMetadata> | null, string> {
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
      if (!entry.success) {
        const place = { path: [field, index], shown: `${field}[${index}]` };
        return err(legacyProblem(format, describeIssueIn(text, entry.issues, place)));
      }
      const { branch, ...meta } = entry.output;
      records.set(branch, meta);
    }
  }
  return ok(records);
}
