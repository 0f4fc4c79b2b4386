import * as v from "valibot";
import { ok } from "../core/result.ts";
import { defineTool } from "./shared/define.ts";
import { FoundBySchema, openPr, PrNumberSchema, PullRequestSchema, targetParams } from "./shared/github-params.ts";

export const getPullRequestTool = defineTool({
  name: "get_pull_request",
  title: "GitHub pull request",
  description:
    "Get full details for a GitHub pull request. Defaults to the current branch's PR. No reviews, CI (get_pr_status) or diff.",
  group: "github",
  input: v.object({ pr_number: v.optional(PrNumberSchema), ...targetParams }),
  output: v.object({ ...PullRequestSchema.entries, found_by: FoundBySchema }),
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPr(ctx, args, info);
    if (!opened.ok) return opened;
    return ok({ ...opened.value.pr, ...opened.value.foundBy });
  },
});
