import { inline, quoted } from "../core/plain-text.ts";
import { MAX_TREE_DEPTH, type TreeNode } from "./graph.ts";
import { STORED_JIRA_KEY } from "./state.ts";

/** Nodes in the trees, each occurrence counted, and a lower bound on their text's JSON bytes. */
export function measureTrees(trees: readonly TreeNode[]): { nodes: number; textBytes: number } {
  let nodes = 0;
  let textBytes = 0;
  const walk = (node: TreeNode, depth: number) => {
    nodes++;
    textBytes += node.branch.length + depth * 4 + 2;
    for (const child of node.children) walk(child, depth + 1);
  };
  for (const tree of trees) walk(tree, 0);
  return { nodes, textBytes };
}

/** The trees cut to lines worth about `room` JSON bytes: roots, `focus` with its path and subtree, then the rest. */
export function cutTrees(
  trees: readonly TreeNode[],
  focus: string | null,
  room: number,
): { trees: TreeNode[]; omitted: number } {
  type Line = { node: TreeNode; parent: number; depth: number; kept?: true };
  const lines: Line[] = [];
  const walk = (node: TreeNode, parent: number, depth: number) => {
    const index = lines.push({ node, parent, depth }) - 1;
    for (const child of node.children) walk(child, index, depth + 1);
  };
  for (const tree of trees) walk(tree, -1, 0);
  const at = (index: number) => lines[index] as Line;
  // Lines are drawn only when weighed. 4 prefix characters a level, box-drawing ones 3 UTF-8 bytes.
  const cost = ({ node, depth }: Line) => (depth === 0 ? 0 : depth * 6 + 4) + jsonStringBytes(line(node));
  let used = 0;
  const fits = (entry: Line) => used + cost(entry) <= room;
  const keep = (entry: Line) => {
    if (!entry.kept) used += cost(entry);
    entry.kept = true;
  };
  for (const entry of lines) if (entry.depth === 0) keep(entry);
  const focused = focus === null ? -1 : lines.findIndex((entry) => entry.node.branch === focus);
  if (focused >= 0) {
    for (let i = focused; i >= 0; i = at(i).parent) keep(at(i));
    for (let i = focused + 1; i < lines.length && at(i).depth > at(focused).depth && fits(at(i)); i++) {
      if (at(at(i).parent).kept) keep(at(i));
    }
  }
  // Up to the first that does not fit: no line is drawn after a gap.
  for (const entry of lines) {
    if (entry.kept || !lines[entry.parent]?.kept) continue;
    if (!fits(entry)) break;
    keep(entry);
  }
  // In drawing order a kept line is its parent's next kept child; a dropped one marks its parent.
  const copies: Array<TreeNode | undefined> = [];
  const cut: TreeNode[] = [];
  for (const { node, parent, kept } of lines) {
    const copy: TreeNode | undefined = kept ? { ...node, children: [] } : undefined;
    copies.push(copy);
    const above = copies[parent];
    if (parent < 0) cut.push(copy as TreeNode);
    else if (above && copy) above.children.push(copy);
    else if (above) above.truncated = true;
  }
  return { trees: cut, omitted: lines.filter((entry) => !entry.kept).length };
}

/** Printable ASCII with nothing JSON escapes: the common branch name, counted without serialising. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Bytes of `text` as a JSON string, quotes included. */
function jsonStringBytes(text: string): number {
  return PLAIN.test(text) ? text.length + 2 : Buffer.byteLength(JSON.stringify(text), "utf8");
}

/** `tree_text`, marked ` [cycle]` / ` [truncated]` where twig would crash, never below the depth cap. */
export function renderTreeText(root: TreeNode): string {
  let text = `${line(root)}\n`;
  let cutByDepth = false;
  const draw = (node: TreeNode, prefix: string, depth: number) => {
    for (const [index, child] of node.children.entries()) {
      const last = index === node.children.length - 1;
      // A deep tree's text grows with its depth squared.
      const atCap = depth + 1 >= MAX_TREE_DEPTH;
      const hidden = atCap && child.children.length > 0;
      const mark = hidden && !child.truncated ? " [truncated]" : "";
      text += `${prefix}${last ? "└── " : "├── "}${line(child)}${mark}\n`;
      if (atCap && (hidden || child.truncated)) cutByDepth = true;
      if (!atCap) draw(child, prefix + (last ? "    " : "│   "), depth + 1);
    }
  };
  draw(root, "", 0);
  if (cutByDepth) {
    text += `(deeper than ${MAX_TREE_DEPTH} levels not shown: pass a [truncated] branch as the root to see below it)\n`;
  }
  return text;
}

function line(node: TreeNode): string {
  const { jira_issue: raw, pr_number: pr } = node;
  // `""` is shown as twig shows it (` ()`); anything but a key twig writes is quoted.
  const links = raw === undefined ? [] : [raw === "" || STORED_JIRA_KEY.test(raw) ? raw : quoted(raw, 80)];
  if (pr !== undefined) links.push(`#${pr}`);
  let text = inline(node.branch) + (links.length > 0 ? ` (${links.join(", ")})` : "");
  if (node.cycle) text += " [cycle]";
  if (node.truncated) text += " [truncated]";
  return text;
}
