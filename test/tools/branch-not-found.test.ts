import { describe, expect, test } from "bun:test";
import { branchNotFound } from "../../src/tools/shared/params.ts";

function message(branch: string, candidates: Iterable<string>): string {
  const result = branchNotFound(branch, "twig state", candidates);
  if (result.ok) throw new Error("branchNotFound returned ok");
  return result.error.message;
}

describe("branchNotFound", () => {
  test("suggests the closest branch, as for tool and argument names", () => {
    expect(message("feature/auht", ["main", "feature/auth", "feature/billing"])).toBe(
      "Branch 'feature/auht' not found in twig state. Did you mean 'feature/auth'?",
    );
    expect(message("feature/AUTH", ["feature/auth"])).toBe(
      "Branch 'feature/AUTH' not found in twig state. Did you mean 'feature/auth'?",
    );
  });

  test("every close name, closest first, at most five", () => {
    const names = ["feature/auth-ui", "feature/auth", "feature/auths", "main", "feature/aut", "feature/oauth"];
    expect(message("feature/auht", names)).toBe(
      "Branch 'feature/auht' not found in twig state. Did you mean 'feature/auth', 'feature/aut', 'feature/auths', 'feature/auth-ui' or 'feature/oauth'?",
    );
    const six = ["fix-a1", "fix-a2", "fix-a3", "fix-a4", "fix-a5", "fix-a6"];
    expect(message("fix-a0", six)).toBe(
      "Branch 'fix-a0' not found in twig state. Did you mean 'fix-a1', 'fix-a2', 'fix-a3', 'fix-a4' or 'fix-a5'?",
    );
  });

  test("names that begin as the word but for one slip are as close, ranked by the whole name", () => {
    const names = ["main", "feature/auth-ui", "feature/billing-api", "feature/auth-base", "feature/auth-oauth"];
    expect(message("feature/auht", names)).toBe(
      "Branch 'feature/auht' not found in twig state. Did you mean 'feature/auth-ui', 'feature/auth-base' or 'feature/auth-oauth'?",
    );
  });

  test("suggests nothing when no name is close", () => {
    expect(message("release/2026", ["main", "feature/auth"])).toBe("Branch 'release/2026' not found in twig state");
    expect(message("feature/auth", [])).toBe("Branch 'feature/auth' not found in twig state");
  });

  test("keeps the hint for the model", () => {
    const result = branchNotFound("x", "repository", [], "Call `get_branch_tree` without `branch`.");
    expect(result.ok ? null : result.error).toMatchObject({
      code: "not_found",
      hint: "Call `get_branch_tree` without `branch`.",
    });
  });

  test("bounded: compares a capped number of candidates, and no very long name", () => {
    // The only close name comes after the cap, so it is never looked at.
    function* many() {
      for (let i = 0; i < 100_000; i++) yield `branch-${i}-${"x".repeat(40)}`;
      yield "feature/auth";
    }
    expect(message("feature/auht", many())).toBe("Branch 'feature/auht' not found in twig state");
    const long = `feature/${"a".repeat(10_000)}`;
    expect(message(`${long}b`, [long])).toBe(`Branch '${`${long}b`.slice(0, 300)}…' not found in twig state`);
  });

  test("a suggested name is shown without control characters", () => {
    expect(message("feature/auht", ["feature/aut\u001b"])).toBe(
      "Branch 'feature/auht' not found in twig state. Did you mean 'feature/aut?'?",
    );
  });
});
