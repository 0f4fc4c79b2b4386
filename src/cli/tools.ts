import type { ToolsOptions } from "./args.ts";
import { writeJson, writeOut } from "./output.ts";
import { createToolRegistry } from "./runtime.ts";

/** `twig-mcp tools`: what a client would see in tools/list, for people (one line each) or programs (--json). */
export async function runTools(options: ToolsOptions): Promise<number> {
  const registry = createToolRegistry(options.disabled);
  const tools = registry.list();
  if (options.json) {
    await writeJson(`${JSON.stringify({ tools }, null, 2)}\n`);
    return 0;
  }
  const rows = tools.map((tool) => ({
    name: tool.name,
    group: registry.get(tool.name)?.group ?? "",
    summary: firstSentence(tool.description),
  }));
  const nameWidth = Math.max(0, ...rows.map((row) => row.name.length));
  const groupWidth = Math.max(0, ...rows.map((row) => row.group.length));
  await writeOut(
    rows.map((row) => `${row.name.padEnd(nameWidth)}  ${row.group.padEnd(groupWidth)}  ${row.summary}\n`).join(""),
  );
  return 0;
}

/** Tool descriptions are written for models and run to several sentences; a listing needs the first. */
function firstSentence(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  const end = text.search(/[.!?](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
