import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildBranchGraph, buildTree } from "../../src/twig/graph.ts";
import { parseRegistryBytes } from "../../src/twig/registry.ts";
import { parseStateBytes } from "../../src/twig/state.ts";
import { renderTreeText } from "../../src/twig/tree.ts";

/** The fenced ```json blocks of a section of docs/state-format.md, in order. */
function jsonBlocks(heading: string): string[] {
  const lines = readFileSync(join(import.meta.dir, "..", "..", "docs", "state-format.md"), "utf8").split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no ${heading} in docs/state-format.md`);
  const blocks: string[] = [];
  let current: string[] | null = null;
  for (const line of lines.slice(start + 1)) {
    if (current === null && line.startsWith("## ")) break;
    if (current === null && line === "```json") current = [];
    else if (current !== null && line === "```") {
      blocks.push(current.join("\n"));
      current = null;
    } else current?.push(line);
  }
  return blocks;
}

const enc = (text: string) => new TextEncoder().encode(text);

describe("docs/state-format.md", () => {
  test("the copyable state.json parses to the documented stack", () => {
    const [current, old] = jsonBlocks("## `.twig/state.json`");
    const state = parseStateBytes(enc(current ?? ""));
    if (!state.ok) throw new Error(state.error);
    expect(state.value.parentsOf("feature/auth-ui")).toEqual(["feature/auth"]);
    expect(state.value.roots).toEqual([{ branch: "main", is_default: true }]);
    expect(state.value.branches.get("feature/auth")?.jira_issue).toBe("SHOP-123");
    // The local branches the page names, byte-wise sorted as the graph expects.
    const local = ["feature/auth", "feature/auth-ui", "feature/billing", "hotfix/typo", "main"];
    const graph = buildBranchGraph(local, state.value);
    expect(renderTreeText(buildTree(graph, state.value, "main"))).toBe(
      "main\n├── feature/auth (SHOP-123, #42)\n│   └── feature/auth-ui (#43)\n├── feature/billing (SHOP-200)\n└── hotfix/typo\n",
    );

    const legacy = parseStateBytes(enc(old ?? ""));
    if (!legacy.ok) throw new Error(legacy.error);
    expect(legacy.value.branches.get("feature/auth")).toMatchObject({ jira_issue: "SHOP-123", github_pr: 42 });
  });

  test("the copyable registry.json parses", () => {
    const [registry] = jsonBlocks("## `registry.json`");
    const entries = parseRegistryBytes(enc(registry ?? ""));
    if (!entries.ok) throw new Error(entries.error);
    expect(entries.value.map((entry) => entry.name)).toEqual(["shop", "tools"]);
    expect(entries.value[1]?.last_fetch).toBeNull();
  });
});
