import * as v from "valibot";
import { getJiraIssueTool } from "../tools/get-jira-issue.ts";
import { getPrStatusTool } from "../tools/get-pr-status.ts";
import { BranchNameSchema, REPO_PARAM_DESCRIPTION } from "../tools/params.ts";

/** Prompt arguments arrive as strings; each becomes what the tool behind takes, by that tool's checks. */
export const RepoArg = v.optional(v.pipe(v.string(), v.description(REPO_PARAM_DESCRIPTION)));

export const BranchArg = v.optional(
  v.pipe(BranchNameSchema, v.description("Branch name. If omitted, uses the current git branch.")),
);

export const PrNumberArg = v.optional(
  v.pipe(
    v.string(),
    // `#43` as people write it; only the digits are the prompt's to parse, the bounds are the tool's.
    v.regex(/^#?[0-9]{1,10}$/, "expected a pull request number"),
    v.transform((text) => Number(text.replace("#", ""))),
    v.unwrap(getPrStatusTool.input.entries.pr_number),
    v.description("Pull request number. If omitted, uses the current branch's linked PR."),
  ),
);

export const IssueKeyArg = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.unwrap(getJiraIssueTool.input.entries.issue_key),
    v.toUpperCase(),
    v.description("Jira issue key (e.g. SHOP-123). If omitted, uses the current branch's linked issue."),
  ),
);
