import { describe, expect, test } from "bun:test";
import { sortBytewise } from "../../src/git/bytewise.ts";
import { buildBranchGraph, buildTree, configuredRoots, divergenceBase, rootCandidates } from "../../src/twig/graph.ts";
import { parseStateBytes, type TwigState } from "../../src/twig/state.ts";
import { renderTreeText } from "../../src/twig/tree.ts";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE, EXAMPLE_TREE_TEXT } from "../support/fixtures.ts";

function state(json: unknown): TwigState {
  const result = parseStateBytes(new TextEncoder().encode(JSON.stringify(json)));
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** buildBranchGraph takes branches as listLocalBranches gives them: in UTF-8 byte order. */
const sorted = (names: string[]) => sortBytewise([...names]);
const deps = (pairs: Array<[string, string]>) => pairs.map(([child, parent]) => ({ child, parent }));
const roots = (...list: Array<[string, boolean]>) => list.map(([branch, is_default]) => ({ branch, is_default }));

describe("buildBranchGraph and renderTreeText", () => {
  test("renders twig's worked example exactly", () => {
    const s = state(EXAMPLE_STATE);
    const graph = buildBranchGraph(sorted(EXAMPLE_BRANCHES), s);
    expect(rootCandidates(sorted(EXAMPLE_BRANCHES), s, "feature/auth-ui")).toEqual(["main"]);
    const tree = buildTree(graph, s, "main");
    expect(renderTreeText(tree)).toBe(EXAMPLE_TREE_TEXT);
    expect(JSON.stringify(tree)).toBe(
      '{"branch":"main","children":[{"branch":"feature/auth","children":[{"branch":"feature/auth-ui","children":[],"pr_number":43}],"jira_issue":"SHOP-123","pr_number":42},{"branch":"feature/billing","children":[],"jira_issue":"SHOP-200"},{"branch":"hotfix/typo","children":[]}]}',
    );
  });

  test("dependencies on branches that are not local are ignored; orphans hang under the default root", () => {
    const s = state({
      dependencies: deps([
        ["b", "gone"],
        ["gone", "main"],
      ]),
      root_branches: roots(["main", true]),
    });
    const graph = buildBranchGraph(["a", "b", "main"], s);
    expect(graph.childrenOf("main")).toEqual(["a", "b"]);
  });

  test("the first root entry is the default root when none is flagged, but every root is a candidate", () => {
    const s = state({ root_branches: roots(["develop", false], ["main", false]) });
    const graph = buildBranchGraph(["develop", "main", "x"], s);
    expect(graph.defaultRoot).toBe("develop");
    expect(rootCandidates(["develop", "main", "x"], s, null)).toEqual(["develop", "main"]);
    expect(graph.childrenOf("develop")).toEqual(["x"]);
    expect(graph.childrenOf("main")).toEqual([]);
  });

  test("candidate order follows the file, not the default flag; orphans go to the flagged default", () => {
    const s = state({ root_branches: roots(["develop", false], ["main", true]) });
    const graph = buildBranchGraph(["develop", "main", "x"], s);
    expect(rootCandidates(["develop", "main", "x"], s, null)).toEqual(["develop", "main"]);
    expect(graph.childrenOf("main")).toEqual(["x"]);
  });

  test("a default root that is not a local branch disables orphan parenting", () => {
    const s = state({ root_branches: roots(["trunk", true], ["main", false]) });
    const graph = buildBranchGraph(["main", "x"], s);
    expect(graph.childrenOf("main")).toEqual([]);
    expect(rootCandidates(["main", "x"], s, null)).toEqual(["main"]);
  });

  test("configured roots that exist, once each in file order; none means the checked-out branch decides", () => {
    const s = state({ root_branches: roots(["main", false], ["gone", true], ["develop", false], ["main", false]) });
    expect(configuredRoots(["develop", "main", "x"], s)).toEqual(["main", "develop"]);
    expect(configuredRoots(["x"], s)).toEqual([]);
    expect(rootCandidates(["x", "y"], s, "y")).toEqual(["y"]);
    expect(rootCandidates(["develop", "main"], s, "develop")).toEqual(["main", "develop"]);
  });

  test("without roots the current branch, else the smallest name, is the candidate", () => {
    const s = state({});
    expect(rootCandidates(["a", "b"], s, "b")).toEqual(["b"]);
    expect(rootCandidates(["a", "b"], s, null)).toEqual(["a"]);
    expect(rootCandidates(["a", "b"], s, "gone")).toEqual(["a"]);
    expect(rootCandidates([], s, null)).toEqual([]);
  });

  test("children sort byte-wise (uppercase first, UTF-8 order beyond the BMP)", () => {
    const kids = ["b", "B", "a", "\u{1F600}", "\uFF5E", "é"];
    const s = state({ dependencies: deps(kids.map((k) => [k, "main"])) });
    const graph = buildBranchGraph(sorted(["main", ...kids]), s);
    expect(graph.childrenOf("main")).toEqual(["B", "a", "b", "é", "\uFF5E", "\u{1F600}"]);
  });

  test("a diamond repeats the shared subtree under each parent", () => {
    const s = state({
      dependencies: deps([
        ["a", "main"],
        ["b", "main"],
        ["c", "a"],
        ["c", "b"],
      ]),
      root_branches: roots(["main", true]),
    });
    const graph = buildBranchGraph(["a", "b", "c", "main"], s);
    expect(renderTreeText(buildTree(graph, s, "main"))).toBe("main\n├── a\n│   └── c\n└── b\n    └── c\n");
  });

  test("cycles are rendered once per path and marked, never looping", () => {
    // The default root declared to depend on a parentless branch: root → x → root (twig crashes).
    const s = state({ dependencies: deps([["main", "x"]]), root_branches: roots(["main", true]) });
    const graph = buildBranchGraph(["main", "x"], s);
    const tree = buildTree(graph, s, "main");
    expect(renderTreeText(tree)).toBe("main\n└── x\n    └── main [cycle]\n");
    expect(tree.children[0]?.children[0]).toEqual({ branch: "main", children: [], cycle: true });

    const self = state({ dependencies: deps([["a", "a"]]) });
    const selfGraph = buildBranchGraph(["a"], self);
    expect(renderTreeText(buildTree(selfGraph, self, "a"))).toBe("a\n└── a [cycle]\n");
  });

  test("annotations follow presence, not emptiness, as twig's", () => {
    const s = state({ branches: { main: { jira_issue: "", github_pr: 7 } } });
    const graph = buildBranchGraph(["main"], s);
    expect(renderTreeText(buildTree(graph, s, "main"))).toBe("main (, #7)\n");
  });

  test("a pathological diamond ladder is cut at the budget instead of exploding", () => {
    const names = ["main"];
    const pairs: Array<[string, string]> = [];
    for (let level = 1; level <= 30; level++) {
      for (const side of ["l", "r"]) {
        names.push(`${side}${level}`);
        const prev = level === 1 ? ["main"] : [`l${level - 1}`, `r${level - 1}`];
        for (const parent of prev) pairs.push([`${side}${level}`, parent]);
      }
    }
    const s = state({ dependencies: deps(pairs), root_branches: roots(["main", true]) });
    const graph = buildBranchGraph(sorted(names), s);
    const budget = { left: 1000 };
    const tree = buildTree(graph, s, "main", budget);
    expect(budget.left).toBeLessThanOrEqual(0);
    expect(renderTreeText(tree)).toContain("[truncated]");
  });
});

describe("divergenceBase: what twig counts ahead/behind against", () => {
  test("the first declared parent that is local, else the default root; none for the default root", () => {
    const s = state({
      dependencies: deps([
        ["b", "gone"],
        ["b", "a"],
        ["a", "main"],
      ]),
      root_branches: roots(["develop", false], ["main", true]),
    });
    const local = sorted(["a", "b", "c", "develop", "main"]);
    expect(divergenceBase(local, s, "b")).toBe("a");
    expect(divergenceBase(local, s, "a")).toBe("main");
    expect(divergenceBase(local, s, "c")).toBe("main");
    // A root that is not the default is still measured against the default root, as twig does.
    expect(divergenceBase(local, s, "develop")).toBe("main");
    expect(divergenceBase(local, s, "main")).toBeNull();
    // Without a local default root there is nothing to count against.
    expect(divergenceBase(sorted(["a", "c"]), s, "c")).toBeNull();
  });
});
