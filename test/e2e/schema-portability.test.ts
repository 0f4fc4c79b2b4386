import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { startServer } from "../support/mcp-harness.ts";

let home: HermeticHome;
let outside: string;

beforeAll(() => {
  home = makeHermeticHome();
  outside = mkdtempSync(join(tmpdir(), "twig-mcp-schemas-"));
});
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  home.cleanup();
});

/** Paths of every `type` written as a list, which single-type dialects (Gemini's OpenAPI subset) refuse. */
function typeLists(node: unknown, path: string, found: string[]): string[] {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) typeLists(item, `${path}[${index}]`, found);
  } else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "type" && Array.isArray(value)) found.push(path);
      typeLists(value, `${path}.${key}`, found);
    }
  }
  return found;
}

test("published schemas write every nullable field as anyOf, never as a type list", async () => {
  const server = await startServer({ cwd: outside, env: home.env });
  try {
    const { tools } = await server.client.listTools();
    const lists = tools.flatMap((tool) => [
      ...typeLists(tool.inputSchema, `${tool.name}.inputSchema`, []),
      ...typeLists(tool.outputSchema, `${tool.name}.outputSchema`, []),
    ]);
    expect(lists).toEqual([]);
    const repositories = tools.find((tool) => tool.name === "list_repositories");
    expect(repositories?.outputSchema?.properties?.default_repository).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
    });
  } finally {
    await server.close();
  }
});
