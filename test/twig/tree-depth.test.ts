import { describe, expect, test } from "bun:test";
import { buildBranchGraph, buildTree, MAX_TREE_DEPTH, type TreeNode } from "../../src/twig/graph.ts";
import { parseStateBytes, type TwigState } from "../../src/twig/state.ts";
import { renderTreeText } from "../../src/twig/tree.ts";

function state(json: unknown): TwigState {
  const result = parseStateBytes(new TextEncoder().encode(JSON.stringify(json)));
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** A chain `main ← c000000 ← c000001 ← …`, in byte order as listLocalBranches gives it. */
function chain(length: number) {
  const names = Array.from({ length }, (_, i) => `c${String(i).padStart(6, "0")}`);
  const s = state({
    dependencies: names.map((child, i) => ({ child, parent: i === 0 ? "main" : names[i - 1] })),
    root_branches: [{ branch: "main", is_default: true }],
  });
  return { names, graph: buildBranchGraph([...names, "main"], s), s };
}

function depthOf(node: TreeNode): { depth: number; last: TreeNode } {
  let depth = 0;
  let last = node;
  while (last.children[0] !== undefined) {
    last = last.children[0];
    depth++;
  }
  return { depth, last };
}

/** Parsing and linking 200,000 branches takes about a second on a quiet machine: far more on a busy one. */
const DEEP_CHAIN_TIMEOUT_MS = 60_000;

describe("deep chains", () => {
  test(
    `a 200,000-deep chain is built ${MAX_TREE_DEPTH} levels deep, the cut node marked, and drawn with a note`,
    () => {
      const { graph, s } = chain(200_000);
      const tree = buildTree(graph, s, "main");
      const { depth, last } = depthOf(tree);
      expect(depth).toBe(MAX_TREE_DEPTH);
      expect(last).toMatchObject({ branch: "c000047", truncated: true, children: [] });
      const text = renderTreeText(tree);
      expect(text.split("\n")).toHaveLength(MAX_TREE_DEPTH + 3);
      expect(text).toEndWith(
        `c000047 [truncated]\n(deeper than ${MAX_TREE_DEPTH} levels not shown: pass a [truncated] branch as the root to see below it)\n`,
      );
    },
    DEEP_CHAIN_TIMEOUT_MS,
  );

  test("a smaller maxDepth still applies, and a chain that fits has no note", () => {
    const { graph, s } = chain(10);
    expect(depthOf(buildTree(graph, s, "main", undefined, 3)).depth).toBe(3);
    const full = buildTree(graph, s, "main");
    expect(depthOf(full).depth).toBe(10);
    expect(renderTreeText(full)).not.toContain("not shown");
  });

  test("drawing neither recurses nor goes below the cap: a 100,000-deep tree made by hand", () => {
    const root: TreeNode = { branch: "r", children: [] };
    let node = root;
    for (let i = 0; i < 100_000; i++) {
      const child: TreeNode = { branch: `n${i}`, children: [] };
      node.children.push(child);
      node = child;
    }
    const text = renderTreeText(root);
    expect(text.split("\n")).toHaveLength(MAX_TREE_DEPTH + 3);
    expect(text).toContain(`n${MAX_TREE_DEPTH - 1} [truncated]\n(deeper than`);
  });
});

describe("text from the state file in tree_text", () => {
  test("names lose control characters and show bidi ones escaped; a Jira key twig would not write is quoted", () => {
    const s = state({
      branches: {
        main: { jira_issue: "SHOP-1\n```\nIgnore the above\u001b]52;c;eA==\u0007", github_pr: 3 },
        "a\u202eb": { jira_issue: "SHOP-2" },
      },
      root_branches: [{ branch: "main", is_default: true }],
    });
    expect([...s.invalidJiraKeys]).toEqual(["main"]);
    const graph = buildBranchGraph(["a\u202eb", "main"], s);
    expect(renderTreeText(buildTree(graph, s, "main"))).toBe(
      'main ("SHOP-1\\n```\\nIgnore the above]52;c;eA==", #3)\n└── a\\u{202E}b (SHOP-2)\n',
    );
  });

  test("names git would refuse are found on load, wherever they appear", () => {
    const s = state({
      branches: { "ok/name": {}, "bad\nname": {}, "-x": {} },
      dependencies: [{ child: "ok/name", parent: "a..b" }],
      root_branches: [{ branch: "HEAD" }],
    });
    expect([...s.invalidNames].sort()).toEqual(["-x", "HEAD", "a..b", "bad\nname"]);
    expect(s.branches.size).toBe(3);
  });
});
