/**
 * Runs at bundle time (imported `with { type: "macro" }`): the published tool list, JSON Schemas
 * included, computed by the project's own registry so the executable need not derive it.
 */
import { createToolRegistry } from "../../src/cli/runtime.ts";
import type { PublishedTool } from "../../src/mcp/tool-registry.ts";

export function publishedTools(): PublishedTool[] {
  return createToolRegistry(new Set()).list();
}
