/**
 * A Bun macro: the published tool list becomes a literal when serve.ts is bundled, so the server
 * does not derive the JSON Schemas on every start (about 3 ms and 0.7 MiB; README → Performance).
 */
import type { PublishedTool } from "../mcp/tool-registry.ts";
import { createToolRegistry } from "./runtime.ts";

export function publishedTools(): PublishedTool[] {
  return createToolRegistry(new Set()).list();
}
