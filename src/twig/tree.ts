import * as v from "valibot";
import type { BranchGraph } from "./graph.ts";
import type { TwigState } from "./state.ts";

export interface TreeNode {
  branch: string;
  children: TreeNode[];
  jira_issue?: string;
  pr_number?: number;
  /** This branch is already an ancestor on this path; its subtree is not repeated. */
  cycle?: true;
  /** The render budget ran out; this node's children are not listed. */
  truncated?: true;
}

export const TreeNodeSchema: v.GenericSchema<TreeNode> = v.object({
  branch: v.string(),
  children: v.array(v.lazy(() => TreeNodeSchema)),
  jira_issue: v.optional(v.string()),
  pr_number: v.optional(v.number()),
  cycle: v.optional(v.literal(true)),
  truncated: v.optional(v.literal(true)),
});

/**
 * Diamonds repeat a shared subtree under each parent (as twig does), which can grow
 * exponentially in a pathological state file; past this many nodes the tree is cut.
 */
export const TREE_NODE_BUDGET = 50_000;

/** Expands the graph below `root`; each node once per path, a repeat on the path marked `cycle`. */
export function buildTree(graph: BranchGraph, state: TwigState, root: string, budget = { left: TREE_NODE_BUDGET }) {
  const onPath = new Set<string>();
  const visit = (branch: string): TreeNode => {
    budget.left--;
    const node: TreeNode = { branch, children: [] };
    const meta = state.branches.get(branch);
    if (meta?.jira_issue != null) node.jira_issue = meta.jira_issue;
    if (meta?.github_pr != null) node.pr_number = meta.github_pr;
    if (onPath.has(branch)) {
      node.cycle = true;
      return node;
    }
    onPath.add(branch);
    for (const child of graph.childrenOf(branch)) {
      if (budget.left <= 0) {
        node.truncated = true;
        break;
      }
      node.children.push(visit(child));
    }
    onPath.delete(branch);
    return node;
  };
  return visit(root);
}

/** twig-mcp's `tree_text` (§4.8), with ` [cycle]` / ` [truncated]` marks where twig would crash. */
export function renderTreeText(root: TreeNode): string {
  // One growing string: the engine joins the pieces once, at the end.
  let text = `${line(root)}\n`;
  const walk = (node: TreeNode, prefix: string) => {
    const children = node.children;
    const lastIndex = children.length - 1;
    for (let index = 0; index <= lastIndex; index++) {
      const child = children[index] as TreeNode;
      const last = index === lastIndex;
      text += `${prefix}${last ? "└── " : "├── "}${line(child)}\n`;
      if (child.children.length > 0) walk(child, prefix + (last ? "    " : "│   "));
    }
  };
  walk(root, "");
  return text;
}

function line(node: TreeNode): string {
  let text = node.branch + annotation(node);
  if (node.cycle) text += " [cycle]";
  if (node.truncated) text += " [truncated]";
  return text;
}

function annotation(node: TreeNode): string {
  const { jira_issue: issue, pr_number: pr } = node;
  if (issue !== undefined) return pr !== undefined ? ` (${issue}, #${pr})` : ` (${issue})`;
  return pr !== undefined ? ` (#${pr})` : "";
}
