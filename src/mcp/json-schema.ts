import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { UNPUBLISHED } from "../tools/shared/params.ts";

export type JsonObject = { [key: string]: unknown };

/**
 * JSON Schema without `$schema`: draft-07 validators (the SDK's Ajv) reject a 2020-12 `$schema`, and the
 * keywords emitted mean the same in both. Checks only code can express stay server-side.
 */
export function jsonSchemaOf(schema: v.GenericSchema): JsonObject {
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
 * The published output schema: top-level fields and their types only, so `tools/list` stays within
 * 12.8 KB; results are still checked server-side against the full valibot schema.
 */
export function outputSchemaOf(schema: v.GenericSchema): JsonObject {
  const json = jsonSchemaOf(schema);
  const properties = (json.properties ?? {}) as JsonObject;
  const fields = Object.entries(properties).map(([key, field]) => [key, withoutFields(field as JsonObject)]);
  return { type: "object", properties: Object.fromEntries(fields) };
}

/** A schema's type without what its objects and arrays hold: `$ref` (a recursive node) becomes `object`. */
function withoutFields(node: JsonObject): JsonObject {
  if ("$ref" in node) return { type: "object" };
  const { properties: _p, required: _r, description: _d, additionalProperties: _a, items: _i, ...rest } = node;
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(rest[key])) rest[key] = (rest[key] as JsonObject[]).map(withoutFields);
  }
  return rest;
}

/**
 * Drops `"required": []`, `unpublished` constraints and fields. Nullable fields stay `anyOf` of single
 * types, since single-`type` dialects (Gemini) reject type lists.
 */
function compact(node: unknown): void {
  if (typeof node !== "object" || node === null) return;
  const object = node as JsonObject;
  const properties = (object.properties ?? {}) as Record<string, JsonObject | null>;
  for (const [key, value] of Object.entries(properties)) {
    if (!(value?.[UNPUBLISHED] as string[] | undefined)?.includes("field")) continue;
    delete properties[key];
    if (Array.isArray(object.required)) object.required = object.required.filter((name) => name !== key);
  }
  if (Array.isArray(object.required) && object.required.length === 0) delete object.required;
  if (Array.isArray(object[UNPUBLISHED])) {
    for (const keyword of object[UNPUBLISHED]) delete object[keyword as string];
    delete object[UNPUBLISHED];
  }
  for (const value of Object.values(object)) compact(value);
}
