import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { toolError } from "../../src/core/errors.ts";
import { err, ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { defineTool, LOCAL_ANNOTATIONS, REMOTE_ANNOTATIONS } from "../../src/tools/shared/define.ts";
import { unpublished } from "../../src/tools/shared/params.ts";
import { createTestContext } from "../support/context.ts";

const ctx = createTestContext({
  home: "/nonexistent",
  dirs: { configDir: "/x", dataDir: "/x", cacheDir: "/x" },
  repo: err(toolError("no_repo", "none")),
});
const signal = new AbortController().signal;

const echo = defineTool({
  name: "echo",
  title: "Echo",
  description: "Echoes",
  group: "local",
  input: v.object({ word: v.string(), times: v.optional(v.number()) }),
  output: v.object({ said: v.string() }),
  annotations: LOCAL_ANNOTATIONS,
  async handler({ word, times }) {
    if (word === "throw") throw new Error("boom");
    if (word === "bad-output") return ok({ said: 42 } as unknown as { said: string });
    if (word === "fail") return err(toolError("not_found", "no such word"));
    return ok({ said: word.repeat(times ?? 1) });
  },
});

const remote = defineTool({ ...echo, name: "remote", group: "github", annotations: REMOTE_ANNOTATIONS } as never);

describe("ToolRegistry", () => {
  const registry = new ToolRegistry([remote, echo], new Set());
  const tool = registry.get("echo")!;

  test("publishes tools sorted by name with JSON Schemas and annotations", () => {
    const [first, second] = registry.list();
    expect(first?.name).toBe("echo");
    expect(second?.name).toBe("remote");
    expect(first?.inputSchema).toEqual({
      type: "object",
      properties: { word: { type: "string" }, times: { type: "number" } },
      required: ["word"],
    });
    expect(first?.title).toBe("Echo");
    expect(first?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    // MCP's default for openWorldHint is true: the remote tools leave it out.
    expect(second?.annotations).toEqual({ readOnlyHint: true });
  });

  test("a nullable field is published as anyOf of single types, which every client dialect reads", () => {
    const nullable = defineTool({
      ...echo,
      name: "nullable",
      input: v.object({ maybe: v.optional(v.nullable(v.string())) }),
    } as never);
    const [published] = new ToolRegistry([nullable], new Set()).list();
    expect(published?.inputSchema).toEqual({
      type: "object",
      properties: { maybe: { anyOf: [{ type: "string" }, { type: "null" }] } },
    });
  });

  test("unpublished constraints are checked but left out of the input schema", async () => {
    const guarded = defineTool({
      ...echo,
      name: "guarded",
      input: v.object({
        word: v.pipe(v.string(), v.minLength(1), v.maxLength(3), unpublished("maxLength"), v.description("A word.")),
      }),
    } as never);
    const registry = new ToolRegistry([guarded], new Set());
    expect(registry.list()[0]?.inputSchema).toEqual({
      type: "object",
      properties: { word: { type: "string", minLength: 1, description: "A word." } },
      required: ["word"],
    });
    const result = await registry.call(registry.get("guarded")!, { word: "long" }, ctx, signal);
    expect(JSON.parse(result.content[0]!.text).error.code).toBe("invalid_params");
  });

  test("output schemas are published one level deep, without required or descriptions", () => {
    type Node = { name: string; children: Node[] };
    const NodeSchema: v.GenericSchema<Node> = v.object({
      name: v.string(),
      children: v.array(v.lazy(() => NodeSchema)),
    });
    const nested = defineTool({
      ...echo,
      name: "nested",
      output: v.object({
        said: v.pipe(v.string(), v.description("What was said.")),
        tags: v.array(v.string()),
        meta: v.object({ n: v.number() }),
        items: v.array(v.object({ a: v.nullable(v.string()) })),
        tree: v.array(NodeSchema),
        gone: v.optional(v.literal(true)),
      }),
    } as never);
    expect(new ToolRegistry([nested], new Set()).list()[0]?.outputSchema).toEqual({
      type: "object",
      properties: {
        said: { type: "string" },
        tags: { type: "array" },
        meta: { type: "object" },
        items: { type: "array" },
        tree: { type: "array" },
        gone: { const: true },
      },
    });
  });

  test("disabled groups are left out", () => {
    const local = new ToolRegistry([remote, echo], new Set(["github"]));
    expect(local.list().map((t) => t.name)).toEqual(["echo"]);
    expect(local.get("remote")).toBeUndefined();
  });

  test("a result becomes the envelope plus structuredContent", async () => {
    const result = await registry.call(tool, { word: "ab", times: 2 }, ctx, signal);
    expect(result).toEqual({
      content: [{ type: "text", text: '{"status":"ok","data":{"said":"abab"}}' }],
      structuredContent: { said: "abab" },
      isError: false,
    });
  });

  test("null arguments mean absent", async () => {
    const result = await registry.call(tool, { word: "a", times: null }, ctx, signal);
    expect(result.structuredContent).toEqual({ said: "a" });
  });

  test("invalid arguments are an invalid_params tool error naming the field", async () => {
    const result = await registry.call(tool, { word: 5 }, ctx, signal);
    expect(result.isError).toBe(true);
    const body = JSON.parse(result.content[0]!.text);
    expect(body.error.code).toBe("invalid_params");
    expect(body.error.message).toContain("word");
    expect(result.structuredContent).toBeUndefined();
  });

  test("an error value becomes the error envelope, hint omitted when absent", async () => {
    const result = await registry.call(tool, { word: "fail" }, ctx, signal);
    expect(result.content[0]!.text).toBe('{"status":"error","error":{"code":"not_found","message":"no such word"}}');
  });

  test("a thrown exception is an internal error, not a crash", async () => {
    const result = await registry.call(tool, { word: "throw" }, ctx, signal);
    expect(JSON.parse(result.content[0]!.text).error.code).toBe("internal");
  });

  test("output outside the declared schema is never sent", async () => {
    const result = await registry.call(tool, { word: "bad-output" }, ctx, signal);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
  });
});

describe("Claude Code's _meta in tools/list", () => {
  test("alwaysLoad only where a tool declares it; maxResultSizeChars on tools that fill the reply budget, from the budget", async () => {
    const { createToolRegistry } = await import("../../src/cli/runtime.ts");
    const { CLAUDE_CODE_MAX_RESULT_CHARS } = await import("../../src/mcp/reply-budget.ts");
    const meta = (tokens?: number) =>
      Object.fromEntries(
        createToolRegistry(new Set(), tokens)
          .list()
          .map((tool) => [tool.name, tool._meta]),
      );
    const byDefault = meta();
    const alwaysLoaded = Object.entries(byDefault).filter(([, m]) => m?.["anthropic/alwaysLoad"] === true);
    expect(alwaysLoaded.map(([name]) => name)).toEqual(["get_branch_context", "get_stack_status"]);
    // 20,000 tokens, each at most 12 characters by the budget's measure: more than Claude Code keeps inline.
    expect(byDefault.list_branches?.["anthropic/maxResultSizeChars"]).toBe(240_000);
    expect(byDefault.get_branch_tree?.["anthropic/maxResultSizeChars"]).toBe(240_000);
    // Small by construction: no hint.
    expect(byDefault.get_current_branch).toBeUndefined();
    // A budget Claude Code keeps inline anyway needs no hint; an unlimited one asks for the most.
    expect(meta(4_000).list_branches).toBeUndefined();
    expect(meta(0).list_branches?.["anthropic/maxResultSizeChars"]).toBe(CLAUDE_CODE_MAX_RESULT_CHARS);
    expect(meta(1_000_000).list_branches?.["anthropic/maxResultSizeChars"]).toBe(CLAUDE_CODE_MAX_RESULT_CHARS);
  });
});

describe("output validation", () => {
  test("runs on every call: an answer that changes after a first valid reply is refused", async () => {
    const answer: { said: unknown } = { said: "hi" };
    const same = defineTool({
      ...echo,
      name: "same",
      async handler() {
        return ok(answer as { said: string });
      },
    });
    const registry = new ToolRegistry([same], new Set());
    const first = await registry.call(same, { word: "x" }, ctx, signal);
    expect(first.isError).toBe(false);
    expect(first.content[0]?.text).toBe('{"status":"ok","data":{"said":"hi"}}');
    answer.said = 42;
    const refused = await registry.call(same, { word: "x" }, ctx, signal);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain("produced an invalid result");
  });
});
