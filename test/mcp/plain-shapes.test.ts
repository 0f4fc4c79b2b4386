import { describe, expect, test } from "bun:test";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  JSONRPCMessageSchema,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { toolError } from "../../src/core/errors.ts";
import { errorResult, okResult } from "../../src/mcp/envelope.ts";
import { isPlainRequest, isPlainToolCall } from "../../src/mcp/plain-shapes.ts";

/** Values of every JSON type, including the ones the checks look for (ids, progress tokens). */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 53, -(2 ** 53), 1.5, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 8 }),
  fc.constantFrom("2.0", "1.0", "tools/call", ""),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

/** A well-typed value most of the time, anything otherwise. */
const mostly = (good: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: anyValue, weight: 1 });

/**
 * Objects built from the members the schemas care about, each of any type and present or not;
 * the `rare` ones are absent most of the time, so that accepted shapes come up often.
 */
function someOf(
  members: Record<string, fc.Arbitrary<unknown>>,
  rare: string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record(
      Object.fromEntries(
        Object.entries(members).map(([key, value]) => [
          key,
          rare.includes(key)
            ? fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: value, weight: 1 })
            : fc.option(value, { nil: undefined }),
        ]),
      ),
    )
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
}

const meta = fc.oneof(
  anyValue,
  someOf(
    {
      progressToken: mostly(fc.oneof(fc.string(), fc.integer())),
      [RELATED_TASK_META_KEY]: mostly(fc.record({ taskId: fc.string() })),
      other: anyValue,
    },
    [RELATED_TASK_META_KEY],
  ),
);
const params = fc.oneof(
  { arbitrary: anyValue, weight: 1 },
  {
    arbitrary: someOf(
      {
        name: mostly(fc.string()),
        arguments: mostly(fc.dictionary(fc.string({ maxLength: 4 }), anyValue, { maxKeys: 3 })),
        _meta: meta,
        task: anyValue,
        extra: anyValue,
      },
      ["task", "_meta"],
    ),
    weight: 4,
  },
);
const message = fc.oneof(
  { arbitrary: anyValue, weight: 1 },
  {
    arbitrary: someOf(
      {
        jsonrpc: mostly(fc.constant("2.0")),
        id: mostly(fc.oneof(fc.string(), fc.integer())),
        method: mostly(fc.string()),
        params,
        result: anyValue,
        error: anyValue,
        extra: anyValue,
      },
      ["result", "error", "extra"],
    ),
    weight: 4,
  },
);

describe("plain shapes are recognised only where the SDK's schemas accept them unchanged", () => {
  test("isPlainRequest ⇒ JSONRPCMessageSchema accepts the message and parses it to an equal one", () => {
    let plain = 0;
    fc.assert(
      fc.property(message, (json) => {
        // What JSON.parse would hand the transport: no `undefined` members.
        const input = JSON.parse(JSON.stringify(json ?? null)) as unknown;
        if (!isPlainRequest(input)) return;
        plain++;
        const parsed = JSONRPCMessageSchema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(input as never);
      }),
      { numRuns: 5000 },
    );
    expect(plain).toBeGreaterThan(20); // the generator reaches the accepted shapes, not only refusals
  });

  test("isPlainToolCall ⇒ CallToolRequestSchema accepts the params", () => {
    let plain = 0;
    fc.assert(
      fc.property(params, (raw) => {
        const input = JSON.parse(JSON.stringify(raw ?? null)) as unknown;
        if (!isPlainToolCall(input)) return;
        plain++;
        expect(CallToolRequestSchema.safeParse({ method: "tools/call", params: input }).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect(plain).toBeGreaterThan(20);
  });

  test("what clients send is plain; what the schemas look inside or refuse is not", () => {
    const call = { name: "get_current_branch", arguments: {} };
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "tools/call", params: call })).toBe(true);
    expect(isPlainRequest({ jsonrpc: "2.0", id: "a", method: "ping" })).toBe(true);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1.5, method: "ping" })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 1 } } })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, result: {} })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", params: [] })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", extra: 1 })).toBe(false);

    expect(isPlainToolCall(call)).toBe(true);
    expect(isPlainToolCall({ name: "x" })).toBe(true);
    expect(isPlainToolCall({ name: "x", _meta: { progressToken: "t", "vendor/key": 1 } })).toBe(true);
    expect(isPlainToolCall({ name: "x", _meta: { progressToken: 1.5 } })).toBe(false);
    expect(isPlainToolCall({ name: "x", _meta: { [RELATED_TASK_META_KEY]: { taskId: "t" } } })).toBe(false);
    expect(isPlainToolCall({ name: "x", task: { ttl: 1 } })).toBe(false);
    expect(isPlainToolCall({ name: "x", arguments: "x" })).toBe(false);
    expect(isPlainToolCall({ name: 7 })).toBe(false);
  });

  test("every result the envelope builds is one CallToolResultSchema accepts as it is", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        (data, message, hint) => {
          for (const result of [okResult(data), errorResult(toolError("not_found", message, hint))]) {
            const parsed = CallToolResultSchema.safeParse(result);
            expect(parsed.success).toBe(true);
            expect(parsed.data).toEqual(result as never);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
