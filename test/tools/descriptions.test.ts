import { describe, expect, test } from "bun:test";
import { createToolRegistry } from "../../src/cli/runtime.ts";

const published = createToolRegistry(new Set()).list();

describe("what tools/list tells a model", () => {
  test("every input property has a description", () => {
    const missing = published.flatMap((tool) =>
      Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>)
        .filter(([, schema]) => typeof schema.description !== "string" || schema.description.trim() === "")
        .map(([name]) => `${tool.name}.${name}`),
    );
    expect(missing).toEqual([]);
  });

  test("the branch listings say which branches they leave out", () => {
    const description = (name: string) => published.find((tool) => tool.name === name)?.description ?? "";
    expect(description("list_branches")).toContain("twig-tracked branches only (get_branch_tree also shows untracked");
    expect(description("get_branch_tree")).toContain("Untracked local branches too");
    expect(description("get_worktrees")).toContain("not the main checkout");
  });
});
