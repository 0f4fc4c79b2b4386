import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";

/**
 * The shapes nearly every client message takes, recognised by a few property checks instead of the
 * SDK's zod schemas, which walk unions and build copies on every message. Each check accepts only
 * what its schema certainly accepts unchanged; anything else goes to the schema, with its exact
 * errors (test/mcp/plain-shapes.test.ts holds the checks to that against the SDK's own schemas).
 */

/**
 * A request `JSONRPCMessageSchema` accepts as it is, and the one kind of message the SDK's
 * `isJSONRPCRequest` recognises it as: only `jsonrpc`, `id`, `method` and `params`, with no
 * `_meta` in `params` (the one member whose inside those schemas look at).
 */
export function isPlainRequest(json: unknown): json is JSONRPCRequest {
  if (typeof json !== "object" || json === null) return false;
  const message = json as Record<string, unknown>;
  let keys = 0;
  for (const key in message) {
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
    keys++;
  }
  const { id, params } = message;
  return (
    message.jsonrpc === "2.0" &&
    typeof message.method === "string" &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    (params === undefined ? keys === 3 : isPlainObject(params) && !("_meta" in params))
  );
}

export interface PlainToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * `tools/call` params `CallToolRequestSchema` accepts: a tool name, arguments that are an object,
 * no task, and `_meta` (if any) with at most a well-typed progress token among what it checks.
 */
export function isPlainToolCall(params: unknown): params is PlainToolCall {
  if (!isPlainObject(params)) return false;
  const { name, arguments: args, _meta: meta } = params;
  return (
    typeof name === "string" &&
    !("task" in params) &&
    (args === undefined || isPlainObject(args)) &&
    (meta === undefined || (isPlainObject(meta) && isPlainMeta(meta)))
  );
}

/** What `RequestMetaSchema` checks: a progress token's type, and a related task. */
function isPlainMeta(meta: Record<string, unknown>): boolean {
  if (RELATED_TASK_META_KEY in meta) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" || Number.isSafeInteger(token);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
