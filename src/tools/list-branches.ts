import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { ok, type Result } from "../core/result.ts";
import { sortBytewise } from "../git/bytewise.ts";
import { workspaceAndState } from "../repo/workspace.ts";
import { type BranchRecord, BranchRecordSchema, branchRecord } from "../twig/branch-record.ts";
import { sortedIndex } from "../twig/graph.ts";
import type { TwigState } from "../twig/state.ts";
import { defineTool } from "./shared/define.ts";
import { CursorSchema, count, cutFields, encodeCursor, resumeAfter } from "./shared/paging.ts";
import { integerIn, unpublished } from "./shared/params.ts";

const MAX_LIST_LIMIT = 10_000;

export const listBranchesTool = defineTool({
  name: "list_branches",
  title: "Tracked branches",
  description:
    "List twig-tracked branches only (get_branch_tree also shows untracked ones) with their Jira issue, PR number and parent branch, sorted by name.",
  group: "local",
  input: v.object({
    query: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(256),
        unpublished("maxLength"),
        v.description("Only names or Jira keys containing this (any case)."),
      ),
    ),
    limit: v.optional(
      v.pipe(
        integerIn(1, MAX_LIST_LIMIT),
        unpublished("minimum", "maximum"),
        v.description("Most branches per page. Default: all."),
      ),
    ),
    cursor: v.optional(CursorSchema),
  }),
  output: v.object({
    branches: v.array(BranchRecordSchema),
    next_cursor: v.optional(v.string()),
    ...cutFields(["branches"]),
  }),
  repoScoped: true,
  async handler(args, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { state } = loaded.value;
    const paged = pageStart(args, ctx);
    if (!paged.ok) return paged;
    const { after, query } = paged.value;
    const names = matchingBranches(state, query);
    const at = after === null ? 0 : sortedIndex(names, after);
    const start = names[at] === after ? at + 1 : at;
    const end = args.limit === undefined ? names.length : Math.min(names.length, start + args.limit);
    const branches = names.slice(start, end).map((name) => branchRecord(state, name));
    if (end === names.length) return ok({ branches });
    return ok({ branches, ...more(branches, names.length - end, query, ctx, false) });
  },
  // At least one branch per page, so following next_cursor always moves on.
  cut: {
    list: "branches",
    min: 1,
    rest(answer, kept, left, args, ctx) {
      // The handler has already refused any cursor pageStart refuses.
      const paged = pageStart(args, ctx);
      return more(answer.branches.slice(0, kept), left, paged.ok ? paged.value.query : null, ctx, true);
    },
  },
});

/** Where the page starts and what it matches: the cursor's, which a different `query` may not contradict. */
function pageStart(
  args: { query?: string; cursor?: string },
  ctx: Context,
): Result<{ after: string | null; query: string | null }> {
  const query = args.query ?? null;
  // Following next_cursor, the query may be left out: the cursor keeps it.
  const same = (paged: string | null) => query === null || query === paged;
  const resumed = resumeAfter(args.cursor, cursorScope(ctx), same, (position) => position);
  return resumed.ok ? ok(resumed.value ?? { after: null, query }) : resumed;
}

/** What a page that is not the last says beside its branches: how many are left and how to go on. */
function more(branches: BranchRecord[], left: number, query: string | null, ctx: Context, cut: boolean) {
  const last = branches.at(-1)?.branch;
  return {
    omitted: { branches: left },
    ...(last === undefined ? {} : { next_cursor: encodeCursor({ after: last, query }, cursorScope(ctx)) }),
    hint: `${count(left)} more ${left === 1 ? "branch" : "branches"}${cut ? " (cut to fit the reply budget)" : ""}: pass next_cursor as cursor${
      query === null ? ", or narrow with query" : ""
    }.`,
  };
}

/** The repository a cursor is bound to: the one this call reads. */
function cursorScope(ctx: Context): string {
  return ctx.repo.ok ? ctx.repo.value : "";
}

/** Tracked branches in byte-wise order, only those whose name or Jira key contains `query` (any case). */
function matchingBranches(state: TwigState, query: string | null): string[] {
  const names = sortBytewise([...state.branches.keys()]);
  if (query === null || query === "") return names;
  const needle = query.toLowerCase();
  return names.filter(
    (name) =>
      name.toLowerCase().includes(needle) ||
      (state.branches.get(name)?.jira_issue?.toLowerCase().includes(needle) ?? false),
  );
}
