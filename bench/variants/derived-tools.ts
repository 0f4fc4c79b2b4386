/**
 * For the start-up experiment only: `tools/list` derived from the valibot schemas on the first
 * request, as before the list was computed at build time. Imported before src/main.ts.
 */
import { publishTool, ToolRegistry } from "../../src/mcp/tool-registry.ts";

const derived = new WeakMap<ToolRegistry, ReturnType<ToolRegistry["list"]>>();

ToolRegistry.prototype.list = function list(this: ToolRegistry) {
  let published = derived.get(this);
  if (!published) {
    published = this.names().map((name) => publishTool(this.get(name) as NonNullable<ReturnType<ToolRegistry["get"]>>));
    derived.set(this, published);
  }
  return published;
};
