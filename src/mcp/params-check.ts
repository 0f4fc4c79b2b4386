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
 * The SDK checks a request against its method's schema before our handler runs, and a failure
 * there (`"arguments": "x"`, a prompt argument that is a number, a numeric `protocolVersion`)
 * reaches the client as `-32603 Internal error` with a dump of zod issues. Checked first against
 * the same schema, such a request is answered `-32602 Invalid params` with the first problem named.
 * `null` for anything else: not a request, a method the SDK does not know, or params that pass.
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
