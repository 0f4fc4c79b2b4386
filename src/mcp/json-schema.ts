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
  compact(json);
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

/**
 * Every `tools/list` lands in the model's context, so schemas are written in their shortest
 * equivalent form: `"required": []` is dropped, and `anyOf` of bare types (valibot's nullable)
 * becomes a type list — `{"type":["string","null"]}` means the same in draft-07 and 2020-12.
 */
function compact(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) compact(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as JsonObject;
  if (Array.isArray(object.required) && object.required.length === 0) delete object.required;
  const anyOf = object.anyOf;
  if (Array.isArray(anyOf) && anyOf.every(isBareType)) {
    delete object.anyOf;
    object.type = anyOf.map((item) => (item as { type: string }).type);
  }
  for (const value of Object.values(object)) compact(value);
}

function isBareType(item: unknown): boolean {
  return (
    typeof item === "object" &&
    item !== null &&
    Object.keys(item).length === 1 &&
    typeof (item as { type?: unknown }).type === "string"
  );
}

function mapValues(object: JsonObject, fn: (value: unknown) => unknown): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}
