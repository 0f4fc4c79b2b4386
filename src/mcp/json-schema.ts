import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type JsonObject = { [key: string]: unknown };

/**
 * JSON Schema for a tool's input or output. MCP's default dialect is 2020-12; we leave `$schema`
 * out because clients validating with a draft-07 validator (the TypeScript SDK's Ajv default)
 * reject a 2020-12 `$schema` they cannot resolve, while the keywords we emit mean the same in both.
 */
export function jsonSchemaOf(schema: v.GenericSchema, options: { descriptions?: boolean } = {}): JsonObject {
  // Checks that only code can express (a git ref-name rule, a key format) stay server-side; their
  // `description` tells the model the rule instead.
  const json = toJsonSchema(schema, {
    target: "draft-2020-12",
    errorMode: "throw",
    ignoreActions: ["check", "raw_check", "checks_items"],
  }) as JsonObject;
  delete json.$schema;
  return options.descriptions === false ? (withoutDescriptions(json) as JsonObject) : json;
}

/**
 * Output schemas go to the model in every `tools/list`; their field descriptions repeat what the
 * tool description and the data already say, so they are published without them.
 */
function withoutDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (typeof node !== "object" || node === null) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" && typeof value === "string") continue;
    // `properties` maps names to schemas: a property may itself be called "description".
    out[key] = key === "properties" ? mapValues(value as JsonObject, withoutDescriptions) : withoutDescriptions(value);
  }
  return out;
}

function mapValues(object: JsonObject, fn: (value: unknown) => unknown): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}
