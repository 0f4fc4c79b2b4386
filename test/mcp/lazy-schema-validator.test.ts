import { describe, expect, test } from "bun:test";
import { LazyJsonSchemaValidator } from "../../src/mcp/lazy-schema-validator.ts";

describe("LazyJsonSchemaValidator", () => {
  test("builds Ajv only when a schema is first checked, and checks as the SDK's validator does", () => {
    const validator = new LazyJsonSchemaValidator();
    expect(validator.built).toBe(false);
    const check = validator.getValidator({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    expect(validator.built).toBe(true);
    expect(check({ n: 1 }).valid).toBe(true);
    expect(check({ n: "x" }).valid).toBe(false);
  });
});
