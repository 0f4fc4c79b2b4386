import * as v from "valibot";
import type { TwigState } from "./state.ts";

/** Upstream's branch metadata record; absent keys are omitted, never `null`. */
export const BranchRecordSchema = v.object({
  branch: v.string(),
  jira_issue: v.optional(v.string()),
  pr_number: v.optional(v.number()),
  parent_branch: v.optional(v.string()),
  created_at: v.optional(v.string()),
});
export type BranchRecord = v.InferOutput<typeof BranchRecordSchema>;

/** Builds the record in upstream's key order so the JSON text is byte-identical. */
export function branchRecord(state: TwigState, branch: string): BranchRecord {
  const record: BranchRecord = { branch };
  const meta = state.branches.get(branch);
  if (meta?.jira_issue != null) record.jira_issue = meta.jira_issue;
  if (meta?.github_pr != null) record.pr_number = meta.github_pr;
  const parent = state.parentsOf(branch)[0];
  if (parent !== undefined) record.parent_branch = parent;
  if (meta?.created_at !== undefined) record.created_at = meta.created_at;
  return record;
}

/** The ancestor chain from `start` to its root via first parents; stops at a repeat (cycle). */
export function branchStack(state: TwigState, start: string): { stack: BranchRecord[]; cycle: boolean } {
  const seen = new Set<string>();
  const stack: BranchRecord[] = [];
  let current: string | undefined = start;
  while (current !== undefined) {
    if (seen.has(current)) return { stack, cycle: true };
    seen.add(current);
    stack.push(branchRecord(state, current));
    current = state.parentsOf(current)[0];
  }
  return { stack, cycle: false };
}
