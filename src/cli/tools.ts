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
  const rows = tools.map((t) => [t.name, registry.get(t.name)?.group ?? "", firstSentence(t.description)] as const);
  const width = (i: 0 | 1) => Math.max(0, ...rows.map((row) => row[i].length));
  const [nameWidth, groupWidth] = [width(0), width(1)];
  await writeOut(
    rows.map(([name, group, about]) => `${name.padEnd(nameWidth)}  ${group.padEnd(groupWidth)}  ${about}\n`).join(""),
  );
  return 0;
}

/** Tool descriptions are written for models and run to several sentences; a listing needs the first. */
function firstSentence(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  const end = text.search(/[.!?](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
