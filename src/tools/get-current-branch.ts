import * as v from "valibot";
import { ok } from "../core/result.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import { BranchRecordSchema, branchRecord } from "../twig/branch-record.ts";
import { loadState } from "../twig/state.ts";
import { defineTool } from "./shared/define.ts";
import { NoParamsSchema } from "./shared/params.ts";

export const getCurrentBranchTool = defineTool({
  name: "get_current_branch",
  title: "Current branch",
  description: "Get the current git branch name and its linked Jira issue and GitHub PR. Numbers only, no live status.",
  group: "local",
  input: NoParamsSchema,
  output: v.object({
    ...BranchRecordSchema.entries,
    unborn: v.optional(v.literal(true)),
    warnings: v.optional(v.array(v.string())),
  }),
  repoScoped: true,
  async handler(_args, ctx) {
    const workspace = await openWorkspace(ctx);
    if (!workspace.ok) return workspace;
    const current = await currentBranch(workspace.value);
    if (!current.ok) return current;
    const state = await loadState(ctx, workspace.value.workTree);
    const { branch, unborn } = current.value;
    const flag = unborn ? { unborn: true as const } : {};
    if (!state.ok) {
      // As upstream, unreadable state only loses the metadata: the branch name is still the answer.
      // Unlike upstream, the model is told, or it would take "no Jira issue, no PR" as the truth.
      ctx.log.warn(state.error.message);
      const warning = `${state.error.message}; jira_issue, pr_number and parent_branch are unknown.${state.error.hint ? ` ${state.error.hint}` : ""}`;
      return ok({ branch, ...flag, warnings: [warning] });
    }
    return ok({ ...branchRecord(state.value, branch), ...flag });
  },
});
