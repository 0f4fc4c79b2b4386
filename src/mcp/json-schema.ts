import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { UNPUBLISHED } from "../tools/params.ts";

export type JsonObject = { [key: string]: unknown };

/**
 * JSON Schema for a tool's input. MCP's default dialect is 2020-12; we leave `$schema` out because
 * clients validating with a draft-07 validator (the TypeScript SDK's Ajv default) reject a 2020-12
 * `$schema` they cannot resolve, while the keywords we emit mean the same in both.
 */
export function jsonSchemaOf(schema: v.GenericSchema): JsonObject {
  // Checks that only code can express (a git ref-name rule, a key format) stay server-side; their
  // `description` tells the model the rule instead.
  const json = toJsonSchema(schema, {
    target: "draft-2020-12",
    errorMode: "throw",
    ignoreActions: ["check", "raw_check", "checks_items"],
  }) as JsonObject;
  delete json.$schema;
  compact(json);
  return json;
}

/**
 * The published form of a tool's output schema: the result's top-level fields and their types —
 * a field holding objects is `{"type":"object"}` or an array of `{"type":"object"}` — without
 * `required`, field descriptions or the fields of nested objects.
 *
 * Every `tools/list` lands in the model's context, and the full output schemas were its largest
 * part (7.3 KB of 17; the whole reply has to stay within 10 KB). What is given up, and why this
 * is the least harmful cut once descriptions and input schemas are as short as they can usefully be:
 * - Clients validate `structuredContent` against this schema (the SDK's Client with Ajv): every
 *   result still conforms, as the schema is only looser, and the server still checks each result
 *   against the full valibot schema before sending it.
 * - Models rarely see output schemas: clients hand the model API a tool's name, description and
 *   input schema. The descriptions say what each tool returns, and the result is plain JSON.
 * - Clients that derive types from output schemas still get every top-level field and its type,
 *   but no longer optional versus always present, nor the fields of nested objects (a PR in a
 *   list, a tree node, a review); docs/tools.md describes each result.
 */
export function outputSchemaOf(schema: v.GenericSchema): JsonObject {
  const json = jsonSchemaOf(schema);
  const properties = (json.properties ?? {}) as JsonObject;
  return { type: "object", properties: mapValues(properties, (field) => withoutFields(field as JsonObject)) };
}

/** A schema's type without what is inside its objects: `$ref` (a recursive node) becomes `object`. */
function withoutFields(node: JsonObject): JsonObject {
  if ("$ref" in node) return { type: "object" };
  const { properties: _p, required: _r, description: _d, additionalProperties: _a, ...rest } = node;
  if (rest.items && typeof rest.items === "object") rest.items = withoutFields(rest.items as JsonObject);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(rest[key])) rest[key] = (rest[key] as JsonObject[]).map(withoutFields);
  }
  return rest;
}

/**
 * Every `tools/list` lands in the model's context, so schemas are written in their shortest
 * portable form: `"required": []` is dropped, and constraints a schema marks `unpublished`
 * (checked server-side only) are removed. A nullable field stays `anyOf` of single-type branches
 * (`{"anyOf":[{"type":"string"},{"type":"null"}]}`), as valibot writes it: the shorter type list
 * (`{"type":["string","null"]}`) means the same in JSON Schema, but clients that map tool schemas
 * onto a single-`type` dialect (Gemini's OpenAPI subset) reject it, and `mcp-inspector --strict`
 * flags it as not portable.
 */
function compact(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) compact(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as JsonObject;
  dropUnpublishedFields(object);
  if (Array.isArray(object.required) && object.required.length === 0) delete object.required;
  if (Array.isArray(object[UNPUBLISHED])) {
    for (const keyword of object[UNPUBLISHED]) delete object[keyword as string];
    delete object[UNPUBLISHED];
  }
  for (const value of Object.values(object)) compact(value);
}

/** Removes the properties marked `unpublished("field")`: optional fields the schema keeps to itself. */
function dropUnpublishedFields(object: JsonObject): void {
  const properties = object.properties;
  if (typeof properties !== "object" || properties === null) return;
  for (const [key, value] of Object.entries(properties)) {
    const keywords = (value as JsonObject | null)?.[UNPUBLISHED];
    if (Array.isArray(keywords) && keywords.includes("field")) {
      delete (properties as JsonObject)[key];
      if (Array.isArray(object.required)) object.required = object.required.filter((name) => name !== key);
    }
  }
}

function mapValues(object: JsonObject, fn: (value: unknown) => unknown): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}
