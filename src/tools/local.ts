import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { printable, trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { statIfExists } from "../fs/local-fs.ts";
import { sortBytewise } from "../git/bytewise.ts";
import { listLocalBranches } from "../git/refs.ts";
import { type LiveWorktree, listLinkedWorktrees } from "../git/worktrees.ts";
import { currentBranch, openWorkspace, type Workspace } from "../repo/workspace.ts";
import { type BranchRecord, BranchRecordSchema, branchRecord, branchStack } from "../twig/branch-record.ts";
import { buildBranchGraph, configuredRoots, includesSorted, rootCandidates, sortedIndex } from "../twig/graph.ts";
import { loadRegistry } from "../twig/registry.ts";
import { loadState, type TwigState } from "../twig/state.ts";
import {
  buildTree,
  cutTrees,
  measureTrees,
  renderTreeText,
  TREE_NODE_BUDGET,
  type TreeNode,
  TreeNodeSchema,
} from "../twig/tree.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { defineTool, type ReplyBudget, type ToolDefinition } from "./define.ts";
import { count, cutList, fitList, HintSchema, omittedSchema, TruncatedSchema } from "./fit.ts";
import { BranchNameSchema, integerIn, NoParamsSchema, unpublished } from "./params.ts";

export async function workspaceAndState(ctx: Context): Promise<Result<{ workspace: Workspace; state: TwigState }>> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return workspace;
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return state;
  return ok({ workspace: workspace.value, state: state.value });
}

/** A branch argument is repeated up to 300 characters: any real name, never a payload. */
function branchNotFound(branch: string, where: string, hint = "Use `list_branches` to see tracked branches.") {
  return err(toolError("not_found", `Branch '${printable(branch, 300)}' not found in ${where}`, hint));
}

export const getCurrentBranchTool = defineTool({
  name: "get_current_branch",
  title: "Current branch",
  description: "Get the current git branch name and its linked Jira issue and GitHub PR",
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
    const current = await currentBranch(ctx, workspace.value);
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

export const getBranchMetadataTool = defineTool({
  name: "get_branch_metadata",
  title: "Branch metadata",
  description: "Get metadata for a specific branch (Jira issue, PR number, parent branch) as recorded by twig.",
  group: "local",
  input: v.object({ branch: v.pipe(BranchNameSchema, v.description("Branch to look up.")) }),
  output: BranchRecordSchema,
  repoScoped: true,
  async handler({ branch }, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { state } = loaded.value;
    return state.branches.has(branch) ? ok(branchRecord(state, branch)) : branchNotFound(branch, "twig state");
  },
});

export const getBranchStackTool = defineTool({
  name: "get_branch_stack",
  title: "Branch stack",
  description:
    "Get the ancestor chain (stack) from a branch up to its root via first declared parents, each as get_branch_metadata returns it.",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Branch to trace from. Default: the current branch."))),
  }),
  output: v.object({
    stack: v.array(BranchRecordSchema),
    cycle: v.optional(v.literal(true)),
    truncated: TruncatedSchema,
    omitted: omittedSchema(["stack"]),
    hint: HintSchema,
  }),
  repoScoped: true,
  async handler({ branch }, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { workspace, state } = loaded.value;
    let start = branch;
    if (start === undefined) {
      const current = await currentBranch(ctx, workspace);
      if (!current.ok) return current;
      start = current.value.branch;
    } else if (
      !state.branches.has(start) &&
      !state.dependencies.some((dep) => dep.child === start || dep.parent === start) &&
      !state.roots.some((root) => root.branch === start)
    ) {
      const local = await listLocalBranches(workspace.repo, ctx.files);
      if (!local.ok) return local;
      if (!local.value.includes(start)) return branchNotFound(start, "twig state or the repository");
    }
    const { stack, cycle } = branchStack(state, start);
    return ok(cycle ? { stack, cycle: true as const } : { stack });
  },
  // Only a pathological state file makes a stack this deep: the branches nearest the start are
  // kept, and the walk can go on from the last one listed.
  fit(answer, budget) {
    const hint = (left: number, kept: number) =>
      `${count(left)} more ancestors left out to fit the reply budget: call get_branch_stack with branch=${JSON.stringify(answer.stack[kept]?.branch ?? "")} to go on.`;
    return cutList(budget, answer, "stack", 1, hint);
  },
});

const BranchTreeOutputSchema = v.object({
  root: v.string(),
  tree_text: v.string(),
  branches: v.array(TreeNodeSchema),
  truncated: TruncatedSchema,
  omitted: omittedSchema(["branches", "tree_lines"]),
  hint: HintSchema,
});
type BranchTreeOutput = v.InferOutput<typeof BranchTreeOutputSchema>;

export const getBranchTreeTool = defineTool({
  name: "get_branch_tree",
  title: "Branch dependency tree",
  description:
    "Get the branch dependency tree: branches nested under their declared parents, with Jira keys and PR numbers, as text and nodes. Narrow with `branch` (one subtree) or `depth`.",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Tree root. Default: every root, default root first."))),
    depth: v.optional(v.pipe(integerIn(0, 10_000), unpublished("minimum", "maximum"))),
  }),
  output: BranchTreeOutputSchema,
  repoScoped: true,
  async handler({ branch, depth }, ctx, call) {
    const opened = await openWorkspace(ctx);
    if (!opened.ok) return opened;
    const workspace = opened.value;
    const [local, state] = await Promise.all([
      listLocalBranches(workspace.repo, ctx.files),
      loadState(ctx, workspace.workTree),
    ]);
    if (!local.ok) return local;
    if (!state.ok) return state;
    if (local.value.length === 0) {
      return err(
        toolError("not_found", "No branches found in repository", "Commit to a branch first; twig works on branches."),
      );
    }
    if (branch !== undefined && !includesSorted(local.value, branch)) {
      return branchNotFound(
        branch,
        "repository",
        "Call `get_branch_tree` without `branch` to see every tree, or `list_branches` for tracked branches.",
      );
    }
    let current: string | null = null;
    let roots = branch === undefined ? configuredRoots(local.value, state.value) : [branch];
    // The checked-out branch is only the fallback root: HEAD is read only when it can matter.
    if (roots.length === 0) {
      const head = await currentBranch(ctx, workspace);
      current = head.ok ? head.value.branch : null;
      roots = rootCandidates(local.value, state.value, current);
    }
    const graph = buildBranchGraph(local.value, state.value, current);
    const budget = { left: TREE_NODE_BUDGET };
    const trees = roots.map((root) => buildTree(graph, state.value, root, budget, depth));
    const root = roots[0] as string;
    // A text that cannot fit even without the nodes is cut now: drawing 10,000 lines and
    // serialising them with their nodes only to throw both away is most of the call's time.
    const { nodes, textBytes } = measureTrees(trees);
    if (call.budget !== undefined && textBytes > call.budget.units) {
      return ok(await cutTreeText(root, trees, call.budget, ctx, nodes));
    }
    return ok({ root, tree_text: trees.map(renderTreeText).join("\n"), branches: trees });
  },
  // Over the reply budget the nodes go first (the text says the same), then text lines (cutTreeText).
  async fit(answer, budget, _args, ctx) {
    // Cut by the handler already and still over: the kept path alone is too big, and is refused.
    if (answer.truncated && answer.branches.length === 0) return answer;
    const { nodes } = measureTrees(answer.branches);
    const textOnly: BranchTreeOutput = {
      ...answer,
      branches: [],
      truncated: true,
      omitted: { branches: nodes },
      hint: "branches (the nodes) left out to fit the reply budget; tree_text is complete. Pass branch or depth for nodes.",
    };
    // A drawn line costs more than a unit a character (its box drawing alone is two tokens): a text
    // longer than the budget in characters need not be serialised to know.
    if (answer.tree_text.length < budget.units && budget.size(textOnly) <= budget.units) return textOnly;
    return cutTreeText(answer.root, answer.branches, budget, ctx, nodes);
  },
});

/** The trees as text cut on whole lines to fit, keeping the checked-out branch's path and subtree. */
async function cutTreeText(
  root: string,
  trees: TreeNode[],
  budget: ReplyBudget,
  ctx: Context,
  nodes: number,
): Promise<BranchTreeOutput> {
  const workspace = await openWorkspace(ctx);
  const head = workspace.ok ? await currentBranch(ctx, workspace.value) : null;
  const focus = head?.ok ? head.value.branch : null;
  const hintFor = (lines: number) =>
    `tree_text cut to fit the reply budget: ${count(lines)} lines left out${
      focus === null ? "" : ` (the path to ${focus} and its subtree are kept)`
    }. Pass branch=<a branch> for its subtree, or depth.`;
  const cutAnswer = (tree_text: string, lines: number): BranchTreeOutput => ({
    root,
    tree_text,
    branches: [],
    truncated: true,
    omitted: { branches: nodes, tree_lines: lines },
  });
  let room = budget.units - budget.size({ ...cutAnswer("", nodes), hint: hintFor(nodes) });
  let fitted = cutAnswer("", nodes);
  const closingRoom = 120 + Buffer.byteLength(JSON.stringify(root), "utf8");
  // Line costs are counted in bytes, which token-dense names outrun: each further pass scales the
  // room by how far the last one overshot.
  // The first pass runs whatever the room: the kept path is drawn even when it cannot fit, and then refused.
  for (let attempt = 0; attempt < 4 && (attempt === 0 || room > 0); attempt++) {
    const cut = cutTrees(trees, focus, room - closingRoom);
    const closing = cut.omitted === 0 ? "" : `… ${count(cut.omitted)} more branches (pass branch=<root> or depth)\n`;
    fitted = {
      ...cutAnswer(cut.trees.map(renderTreeText).join("\n") + closing, cut.omitted),
      hint: hintFor(cut.omitted),
    };
    const size = budget.size(fitted);
    if (size <= budget.units) return fitted;
    room = Math.floor(((room - closingRoom) * budget.units) / size) + closingRoom - 64;
  }
  return fitted;
}

const MAX_LIST_LIMIT = 10_000;

const ListBranchesOutputSchema = v.object({
  branches: v.array(BranchRecordSchema),
  truncated: TruncatedSchema,
  omitted: omittedSchema(["branches"]),
  next_cursor: v.optional(v.string()),
  hint: HintSchema,
});
type ListBranchesOutput = v.InferOutput<typeof ListBranchesOutputSchema>;

export const listBranchesTool = defineTool({
  name: "list_branches",
  title: "Tracked branches",
  description:
    "List twig-tracked branches with their Jira issue, PR number and parent branch, sorted by name. `query` filters by name or Jira key; a long list pages: pass `next_cursor` back as `cursor`.",
  group: "local",
  input: v.object({
    // No descriptions: tools/list must stay within 10 KB, and a cut page's hint says how to use them.
    query: v.optional(v.pipe(v.string(), v.maxLength(256), unpublished("maxLength"))),
    limit: v.optional(v.pipe(integerIn(1, MAX_LIST_LIMIT), unpublished("minimum", "maximum"))),
    cursor: v.optional(v.pipe(v.string(), v.maxLength(4096), unpublished("maxLength"))),
  }),
  output: ListBranchesOutputSchema,
  repoScoped: true,
  async handler(args, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { state } = loaded.value;
    const repository = cursorScope(ctx);
    let after: string | null = null;
    let query = args.query ?? null;
    if (args.cursor !== undefined) {
      const decoded = decodeCursor(args.cursor, repository);
      const refuse = (message: string, hint: string) =>
        err(toolError("invalid_params", message, `${hint}, or start again without cursor.`));
      if (!decoded.ok) {
        return refuse(
          `cursor cannot be used: ${decoded.why}`,
          "Pass next_cursor exactly as the previous list_branches page gave it",
        );
      }
      const paged = decoded.value.query;
      if (query !== null && query !== paged) {
        return refuse(
          `cursor pages through ${paged === null ? "every branch" : `query ${JSON.stringify(paged)}`}, not query ${JSON.stringify(query)}`,
          "Keep the query of the first page while following next_cursor",
        );
      }
      ({ after, query } = decoded.value);
    }
    const names = matchingBranches(state, query);
    const at = after === null ? 0 : sortedIndex(names, after);
    const start = names[at] === after ? at + 1 : at;
    const end = args.limit === undefined ? names.length : Math.min(names.length, start + args.limit);
    const branches = names.slice(start, end).map((name) => branchRecord(state, name));
    if (end === names.length) return ok({ branches });
    return ok(listPage(branches, names.length - end, query, repository, false));
  },
  fit(answer, budget, args, ctx) {
    const repository = cursorScope(ctx);
    // The handler has already refused any cursor that does not decode.
    const decoded = args.cursor === undefined ? null : decodeCursor(args.cursor, repository);
    const query = args.query ?? (decoded?.ok ? decoded.value.query : null);
    const all = answer.branches;
    const left = answer.omitted?.branches ?? 0;
    // At least one branch per page, so following next_cursor always moves on.
    return fitList(budget, all, 1, (n) => listPage(all.slice(0, n), left + all.length - n, query, repository, true));
  },
});

/** A page that is not the last. */
function listPage(
  branches: BranchRecord[],
  left: number,
  query: string | null,
  repository: string,
  cut: boolean,
): ListBranchesOutput {
  const last = branches.at(-1)?.branch;
  const page: ListBranchesOutput = { branches };
  if (cut) page.truncated = true;
  page.omitted = { branches: left };
  if (last !== undefined) page.next_cursor = encodeCursor({ after: last, query }, repository);
  page.hint = `${count(left)} more branches${cut ? " (cut to fit the reply budget)" : ""}: pass next_cursor as cursor${
    query === null ? ", or narrow with query" : ""
  }.`;
  return page;
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

const listRepositories = defineTool({
  name: "list_repositories",
  title: "Registered repositories",
  description:
    "List all twig-registered repositories: name, path, whether it exists, and which one tools read by default (pass a name as `repo` to read another).",
  group: "local",
  input: NoParamsSchema,
  output: v.object({
    repositories: v.array(
      v.object({ name: v.string(), path: v.string(), exists: v.boolean(), is_default: v.optional(v.literal(true)) }),
    ),
    default_repository: v.nullable(v.string()),
  }),
  async handler(_args, ctx) {
    const registry = await loadRegistry(ctx);
    if (!registry.ok) return registry;
    const fallback = ctx.repos ? await ctx.repos.settledDefault() : ctx.repo;
    const current = fallback.ok ? fallback.value : null;
    const currentId = current === null ? null : await directoryId(current);
    const repositories = await Promise.all(
      registry.value.map(async ({ name, path }) => {
        const id = await directoryId(path);
        const isDefault = id !== null && id === currentId;
        return { name, path, exists: id !== null, ...(isDefault ? { is_default: true as const } : {}) };
      }),
    );
    return ok({ repositories, default_repository: current });
  },
});

/** The directory `path` reaches (through symlinks) as device:inode, one `stat`; `null` when absent. */
async function directoryId(path: string): Promise<string | null> {
  try {
    const info = await statIfExists(path);
    return info === undefined ? null : `${info.dev}:${info.ino}`;
  } catch {
    return null;
  }
}

const WorktreeSchema = v.object({
  name: v.string(),
  path: v.string(),
  branch: v.nullable(v.string()),
  source: v.picklist(["twig", "git", "twig+git"]),
  locked: v.optional(v.literal(true)),
  prunable: v.optional(v.literal(true)),
});
type Worktree = v.InferOutput<typeof WorktreeSchema>;

export const getWorktreesTool = defineTool({
  name: "get_worktrees",
  title: "Worktrees",
  description:
    "Get the worktrees of the current repository (name, path, branch): twig's records merged with git's linked worktrees; `source` shows stale records.",
  group: "local",
  input: NoParamsSchema,
  output: v.object({ worktrees: v.array(WorktreeSchema) }),
  repoScoped: true,
  async handler(_args, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { workspace, state } = loaded.value;
    const live = await listLinkedWorktrees(workspace.repo, ctx.files);
    if (!live.ok) return live;
    // twig's record and git's admin dir usually name the same path, which needs no `stat`; other
    // paths are compared by the directory they reach, found only when needed.
    const liveByPath = new Map(live.value.map((worktree) => [trimmedPath(worktree.path), worktree]));
    let liveById: Map<string | null, LiveWorktree> | undefined;
    const twinOf = async (path: string): Promise<LiveWorktree | undefined> => {
      const same = liveByPath.get(path);
      if (same !== undefined) return same;
      const id = await directoryId(path);
      if (id === null) return undefined;
      liveById ??= new Map(
        await Promise.all(
          [...liveByPath].map(async ([livePath, worktree]) => [await directoryId(livePath), worktree] as const),
        ),
      );
      return liveById.get(id);
    };
    const worktrees: Worktree[] = [];
    const matched = new Set<LiveWorktree>();
    for (const { name, path, branch } of state.worktrees) {
      const git = await twinOf(trimmedPath(path));
      if (git) matched.add(git);
      worktrees.push({ name, path, branch, source: git ? "twig+git" : "twig", ...gitFlags(git) });
    }
    for (const git of live.value) {
      if (matched.has(git)) continue;
      const branch = git.head?.kind === "branch" ? git.head.branch : null;
      worktrees.push({ name: git.id, path: git.path, branch, source: "git", ...gitFlags(git) });
    }
    return ok({ worktrees });
  },
});

function gitFlags(git: LiveWorktree | undefined) {
  return { ...(git?.locked ? { locked: true as const } : {}), ...(git?.prunable ? { prunable: true as const } : {}) };
}

/** A worktree path without its trailing slashes, as git and twig may each write it. */
function trimmedPath(path: string): string {
  return path.length > 1 ? trimChars(path, "\\/") : path;
}

export const localTools: ToolDefinition[] = [
  getBranchMetadataTool,
  getBranchStackTool,
  getBranchTreeTool,
  getCurrentBranchTool,
  getWorktreesTool,
  listBranchesTool,
  listRepositories,
];
