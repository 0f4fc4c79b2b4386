import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { type ErrorCode, toolError } from "../core/errors.ts";
import { quoted } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { FULL_DESCRIPTION_CHARS, JiraIssueSchema, truncate } from "../jira/issue.ts";
import { ISSUE_KEY_PATTERN, normalizeIssueKey } from "../jira/jql.ts";
import { checkedOutRecord } from "../repo/workspace.ts";
import { defineTool } from "./shared/define.ts";
import { notAKey, readJiraIssue } from "./shared/jira-issue.ts";
import { count, HintSchema, largestFitting } from "./shared/paging.ts";
import { unpublished } from "./shared/params.ts";

const IssueOutputSchema = v.object({
  ...JiraIssueSchema.entries,
  description_length: v.optional(v.pipe(v.number(), unpublished("field"))),
  hint: HintSchema,
});
type IssueOutput = v.InferOutput<typeof IssueOutputSchema>;

export const getJiraIssueTool = defineTool({
  name: "get_jira_issue",
  title: "Jira issue",
  description:
    "Get details for a Jira issue. Defaults to the current branch's linked issue. No comments, attachments or history.",
  group: "jira",
  input: v.object({
    issue_key: v.optional(
      v.pipe(
        v.string(),
        v.regex(ISSUE_KEY_PATTERN, 'Expected a Jira issue key such as "PROJ-123"'),
        unpublished("pattern"),
        v.description('Jira issue key (e.g. "PROJ-123"). Default: the current branch\'s linked issue.'),
      ),
    ),
  }),
  output: IssueOutputSchema,
  repoScoped: true,
  async handler(args, ctx, call) {
    const explicit = args.issue_key === undefined ? null : normalizeIssueKey(args.issue_key);
    if (args.issue_key !== undefined && explicit === null) return notAKey(args.issue_key, "issue");
    const client = await ctx.jira();
    if (!client.ok) return client;
    const linked = explicit === null ? await linkedIssueKey(ctx) : ok(explicit);
    if (!linked.ok) return linked;
    const issue = await readJiraIssue(client.value, linked.value, call.signal);
    if (!issue.ok) return issue;
    const found = issue.value;
    return ok(found.truncated ? { ...found, hint: cutHint(count(FULL_DESCRIPTION_CHARS)) } : found);
  },
  // Only the description can be long: it is cut to fit, saying its whole length when known (rendered whole).
  fit(answer, budget) {
    const full = answer.description;
    if (full === undefined) return answer;
    const { truncated, hint: _, description_length: __, ...rest } = answer;
    const cut = (max: number): IssueOutput =>
      full.length <= max
        ? answer
        : {
            ...rest,
            description: truncate(full, max).text,
            truncated: true,
            ...(truncated ? {} : { description_length: full.length }),
            hint: cutHint(`${count(max)}${truncated ? "" : ` of its ${count(full.length)}`}`),
          };
    return largestFitting(budget, cut, 0, full.length);
  },
});

const cutHint = (size: string) => `The description is cut to about ${size} characters; open url for the rest.`;

/** The current branch's issue in `.twig/state.json`; a detached HEAD is reported as such, not as branch `HEAD`. */
async function linkedIssueKey(ctx: Context): Promise<Result<string>> {
  const fail = (code: ErrorCode, message: string, more?: string) =>
    err(toolError(code, message, `Provide an explicit issue_key parameter.${more ? ` ${more}` : ""}`));
  const noBranch = (why: string) => fail("invalid_params", `No issue_key provided and ${why}`);
  const checkedOut = await checkedOutRecord(ctx);
  if (!checkedOut.ok) {
    const failure = checkedOut.error;
    if (failure.why === "detached") {
      return noBranch(`HEAD is detached (at ${failure.oid.slice(0, 12)}), so there is no current branch`);
    }
    if (failure.why === "head") return noBranch(`could not detect current branch: ${failure.error.message}`);
    if (failure.why === "state") return err(failure.error);
    return fail(failure.error.code, failure.error.message, failure.error.hint);
  }
  const { branch, record } = checkedOut.value;
  const linked = record?.jira_issue ?? null;
  if (linked === null || linked.trim() === "") return fail("not_found", `Branch '${branch}' has no linked Jira issue`);
  const key = normalizeIssueKey(linked);
  if (key !== null) return ok(key);
  return fail(
    "invalid_params",
    `Branch '${branch}' is linked to ${quoted(linked, 80)}, which is not a Jira issue key`,
    "The link in .twig/state.json can be fixed with twig.",
  );
}
