/**
 * For the start-up experiment only: `tools/list` answered from JSON Schemas computed at build time
 * (a Bun macro) instead of derived from the valibot schemas on the first request. Imported before
 * src/main.ts.
 */
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { publishedTools } from "./tool-list.macro.ts" with { type: "macro" };

const PUBLISHED = publishedTools();

ToolRegistry.prototype.list = function list(this: ToolRegistry) {
  return PUBLISHED.filter((tool) => this.has(tool.name));
};
