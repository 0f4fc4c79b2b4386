import * as v from "valibot";
import { ASCII_CONTROLS } from "../core/plain-text.ts";
import { listPullRequests } from "../github/pull-request.ts";
import { defineTool } from "./shared/define.ts";
import { openCall, PullRequestSchema, targetParams } from "./shared/github-params.ts";
import { cutFields, limitCut } from "./shared/paging.ts";
import { integerIn, unpublished } from "./shared/params.ts";

/** What git accepts in a branch name, loosely: printable, no spaces, bounded. */
const RefFilterSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(new RegExp(`^[^\\s${ASCII_CONTROLS}~^?*[\\\\]+$`)),
  // A lone surrogate has no UTF-8 form, so it cannot be put in a URL.
  v.check((name) => name.isWellFormed(), "not valid Unicode"),
  unpublished("minLength", "maxLength", "pattern"),
);

const DEFAULT_PR_LIST_LIMIT = 30;
const MAX_PR_LIST_LIMIT = 500;

export const listPullRequestsTool = defineTool({
  name: "list_pull_requests",
  title: "GitHub pull requests",
  description:
    "List pull requests for the current repository. Defaults to open PRs. Newest first, as get_pull_request gives each (shorter body, no reviews or CI). has_more: raise limit.",
  group: "github",
  input: v.object({
    state: v.optional(
      v.pipe(v.picklist(["open", "closed", "all"]), v.description('Filter by state. Default: "open".')),
    ),
    limit: v.optional(
      v.pipe(integerIn(1, MAX_PR_LIST_LIMIT), v.description(`Most PRs to return. Default: ${DEFAULT_PR_LIST_LIMIT}.`)),
    ),
    head: v.optional(v.pipe(RefFilterSchema, v.description("Only PRs from this branch (`owner:branch` for a fork)."))),
    base: v.optional(v.pipe(RefFilterSchema, v.description("Only PRs that merge into this branch."))),
    ...targetParams,
  }),
  output: v.object({
    pull_requests: v.array(PullRequestSchema),
    has_more: v.boolean(),
    ...cutFields(["pull_requests"]),
  }),
  repoScoped: true,
  async handler(args, ctx, info) {
    const call = await openCall(ctx, args, info);
    if (!call.ok) return call;
    return listPullRequests(call.value, {
      state: args.state ?? "open",
      limit: args.limit ?? DEFAULT_PR_LIST_LIMIT,
      head: args.head,
      base: args.base,
    });
  },
  cut: limitCut("pull_requests", "PRs", "state, head or base"),
});
