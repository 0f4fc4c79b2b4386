/**
 * A Bun macro (imported `with { type: "macro" }`): runs when serve.ts is bundled or transpiled and
 * leaves the published tool list — titles, descriptions, JSON Schemas — in the code as a literal,
 * computed by the same registry from the same valibot schemas, so the server does not derive the
 * schemas again on every start (about 3 ms and 0.7 MiB; README → Performance).
 */
import type { PublishedTool } from "../mcp/tool-registry.ts";
import { createToolRegistry } from "./runtime.ts";

export function publishedTools(): PublishedTool[] {
  return createToolRegistry(new Set()).list();
}
