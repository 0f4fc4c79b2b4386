import * as v from "valibot";
import { ok } from "../core/result.ts";
import { workspaceAndState } from "../repo/workspace.ts";
import { BranchRecordSchema, branchRecord } from "../twig/branch-record.ts";
import { defineTool } from "./shared/define.ts";
import { BranchNameSchema, branchNotFound } from "./shared/params.ts";

export const getBranchMetadataTool = defineTool({
  name: "get_branch_metadata",
  title: "Branch metadata",
  description:
    "Get metadata for a specific branch (Jira issue, PR number, parent branch) as recorded by twig. Untracked: not_found. No live status.",
  group: "local",
  input: v.object({ branch: v.pipe(BranchNameSchema, v.description("Branch to look up.")) }),
  output: BranchRecordSchema,
  repoScoped: true,
  async handler({ branch }, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { state } = loaded.value;
    return state.branches.has(branch)
      ? ok(branchRecord(state, branch))
      : branchNotFound(branch, "twig state", state.branches.keys());
  },
});
