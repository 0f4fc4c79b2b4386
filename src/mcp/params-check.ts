import {
  ClientRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";

/** Every client request's schema, by method, exactly as the SDK declares them. */
const SCHEMAS: ReadonlyMap<string, (typeof ClientRequestSchema.options)[number]> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/**
 * The SDK answers a request failing its method's schema with `-32603` and a dump of zod issues;
 * checked first against the same schema, it gets `-32602` naming the first problem. `null` otherwise.
 */
export function invalidParamsReply(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!isJSONRPCRequest(message)) return null;
  const schema = SCHEMAS.get(message.method);
  if (schema === undefined) return null;
  const checked = schema.safeParse(message);
  if (checked.success) return null;
  const first = checked.error.issues[0];
  const path = first?.path.map(String).join(".") ?? "";
  const problem = first?.message.replace(/^Invalid input: /, "") ?? "invalid";
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params for ${message.method}: ${path === "" ? problem : `${path}: ${problem}`}`,
    },
  };
}
