import * as v from "valibot";
import type { BranchCommits } from "../../git/commits/branch-commits.ts";

/** A branch's tip and drift in a reply; each field is described on git's `BranchCommits`, which it must match. */
export const BranchCommitsSchema = v.object({
  head: v.optional(v.object({ sha: v.string(), subject: v.string(), committed_at: v.string() })),
  base: v.optional(v.string()),
  ahead: v.optional(v.number()),
  behind: v.optional(v.number()),
  needs_restack: v.optional(v.boolean()),
  commits: v.optional(v.array(v.object({ sha: v.string(), subject: v.string() }))),
  commits_omitted: v.optional(v.number()),
  push: v.optional(
    v.union([
      v.object({ remote_ref: v.string(), unpushed: v.number(), unpulled: v.number() }),
      v.object({ remote_ref: v.string(), missing: v.literal(true) }),
    ]),
  ),
  pr_head: v.optional(v.object({ sha: v.string(), local_ahead: v.number(), local_behind: v.number() })),
  counts_limited_by: v.optional(v.picklist(["walk_limit", "shallow", "budget"])),
  commit_warnings: v.optional(v.array(v.string())),
}) satisfies v.GenericSchema<BranchCommits>;
