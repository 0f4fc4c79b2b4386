import { normalize } from "node:path";
import * as v from "valibot";
import { trimChars } from "../core/plain-text.ts";
import { ok } from "../core/result.ts";
import { type LiveWorktree, listLinkedWorktrees, readLinkedHead } from "../git/worktrees.ts";
import { workspaceAndState } from "../repo/workspace.ts";
import { defineTool } from "./shared/define.ts";
import { count, cutFields } from "./shared/paging.ts";
import { NoParamsSchema } from "./shared/params.ts";

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
    "Linked worktrees (name, path, branch; not the main checkout): twig's records merged with git's; `source` marks stale ones.",
  group: "local",
  input: NoParamsSchema,
  output: v.object({ worktrees: v.array(WorktreeSchema), ...cutFields(["worktrees"]) }),
  repoScoped: true,
  async handler(_args, ctx) {
    const loaded = await workspaceAndState(ctx);
    if (!loaded.ok) return loaded;
    const { workspace, state } = loaded.value;
    const live = await listLinkedWorktrees(workspace, ctx.files);
    if (!live.ok) return live;
    // Both paths come from repository files, so they are compared as text and never touched: on
    // macOS and Windows a `stat` of `/net/host/…` or `//host/share` contacts that host.
    const liveByPath = new Map(live.value.map((worktree) => [comparablePath(worktree.path), worktree]));
    const worktrees: Worktree[] = [];
    const matched = new Set<LiveWorktree>();
    for (const { name, path, branch } of state.worktrees) {
      const git = liveByPath.get(comparablePath(path));
      if (git) matched.add(git);
      worktrees.push({ name, path, branch, source: git ? "twig+git" : "twig", ...gitFlags(git) });
    }
    // twig's record names the branch of a worktree it knows; only the others' HEADs are read.
    for (const git of live.value) {
      if (matched.has(git)) continue;
      const head = await readLinkedHead(workspace, git);
      const branch = head?.kind === "branch" ? head.branch : null;
      worktrees.push({ name: git.id, path: git.path, branch, source: "git", ...gitFlags(git) });
    }
    return ok({ worktrees });
  },
  seldomCut: true,
  cut: {
    list: "worktrees",
    rest: (_answer, _kept, left) => ({ hint: `${count(left)} more worktrees left out to fit the reply budget.` }),
  },
});

function gitFlags(git: LiveWorktree | undefined) {
  return { ...(git?.locked ? { locked: true as const } : {}), ...(git?.prunable ? { prunable: true as const } : {}) };
}

/** A worktree path as text to compare: `.` and `..` resolved, without the trailing slashes git and twig may each write. */
function comparablePath(path: string): string {
  const normalized = normalize(path);
  return normalized.length > 1 ? trimChars(normalized, "\\/") : normalized;
}
