import { describe, expect, test } from "bun:test";
import { sortBytewise } from "../../src/git/bytewise.ts";
import { buildBranchGraph, stackMembers } from "../../src/twig/graph.ts";
import { parseStateBytes, type TwigState } from "../../src/twig/state.ts";
import { EXAMPLE_BRANCHES, EXAMPLE_STATE } from "../support/fixtures.ts";

function state(json: unknown): TwigState {
  const result = parseStateBytes(new TextEncoder().encode(JSON.stringify(json)));
  if (!result.ok) throw new Error(result.error);
  return result.value;
}
const deps = (pairs: Array<[string, string]>) => pairs.map(([child, parent]) => ({ child, parent }));
const MAIN_ROOT = [{ branch: "main", is_default: true }];

function members(json: unknown, local: string[], branch: string | null, trunks = ["main"]) {
  const s = state(json);
  const graph = buildBranchGraph(sortBytewise([...local]), s);
  return stackMembers(graph, s, sortBytewise([...local]), trunks, branch).map(({ branch: name, parent, depth }) => [
    name,
    parent ?? null,
    depth,
  ]);
}

describe("stackMembers", () => {
  test("the stack holding a branch, from the branch on the trunk down, as the tree draws it", () => {
    expect(members(EXAMPLE_STATE, EXAMPLE_BRANCHES, "feature/auth-ui")).toEqual([
      ["feature/auth", "main", 0],
      ["feature/auth-ui", "feature/auth", 1],
    ]);
  });

  test("a trunk, or no branch, is every stack on the trunks; orphans hang under the default root", () => {
    const all = [
      ["feature/auth", "main", 0],
      ["feature/auth-ui", "feature/auth", 1],
      ["feature/billing", "main", 0],
      ["hotfix/typo", "main", 0],
    ];
    expect(members(EXAMPLE_STATE, EXAMPLE_BRANCHES, "main")).toEqual(all);
    expect(members(EXAMPLE_STATE, EXAMPLE_BRANCHES, null)).toEqual(all);
    expect(members(EXAMPLE_STATE, EXAMPLE_BRANCHES, "hotfix/typo")).toEqual([["hotfix/typo", "main", 0]]);
  });

  test("a parent deleted after it merged: the branch hangs under the default root, as the tree draws it", () => {
    const json = {
      dependencies: deps([
        ["feature/auth", "main"],
        ["feature/auth-ui", "feature/auth"],
        ["feature/auth-ui-tests", "feature/auth-ui"],
      ]),
      root_branches: MAIN_ROOT,
    };
    expect(members(json, ["main", "feature/auth-ui", "feature/auth-ui-tests"], "feature/auth-ui-tests")).toEqual([
      ["feature/auth-ui", "main", 0],
      ["feature/auth-ui-tests", "feature/auth-ui", 1],
    ]);
  });

  test("a diamond lists a branch once, where it is first drawn", () => {
    const json = {
      dependencies: deps([
        ["a", "main"],
        ["b", "a"],
        ["c", "a"],
        ["d", "b"],
        ["d", "c"],
      ]),
      root_branches: MAIN_ROOT,
    };
    expect(members(json, ["main", "a", "b", "c", "d"], "d")).toEqual([
      ["a", "main", 0],
      ["b", "a", 1],
      ["d", "b", 2],
      ["c", "a", 1],
    ]);
  });

  test("a parent loop ends the walk up; each branch of the loop is listed once", () => {
    const json = {
      dependencies: deps([
        ["x", "y"],
        ["y", "x"],
      ]),
      root_branches: MAIN_ROOT,
    };
    const listed = members(json, ["main", "x", "y"], "x");
    expect(listed.map(([name]) => name).sort()).toEqual(["x", "y"]);
  });

  test("without any root, a parentless branch is the bottom of its own stack", () => {
    const json = { dependencies: deps([["b", "a"]]) };
    expect(members(json, ["a", "b"], "b", [])).toEqual([
      ["a", null, 0],
      ["b", "a", 1],
    ]);
  });
});
