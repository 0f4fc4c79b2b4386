import { err, ok, type Result } from "../core/result.ts";
import type { CallToolResult } from "../mcp/envelope.ts";
import type { JsonObject } from "../mcp/json-schema.ts";
import { chooseMaxReplyTokens } from "../mcp/reply-budget.ts";
import type { CallOptions } from "./args.ts";
import { writeErr, writeJson, writeOut } from "./output.ts";
import { renderToolData } from "./render-result.ts";
import { createRuntimeContext, createToolRegistry } from "./runtime.ts";
import { closest } from "./suggest.ts";

/**
 * `twig-mcp call <tool> [args]`: one tools/call through the same registry, validation and
 * envelope as the server, against the repository of the working directory (or --repo).
 */
export async function runCall(options: CallOptions): Promise<number> {
  const maxReplyTokens = chooseMaxReplyTokens(options.maxReplyTokens ?? null, process.env, () => {});
  const registry = createToolRegistry(options.disabled, undefined, maxReplyTokens);
  const tool = registry.get(options.tool);
  if (!tool) {
    await writeErr(
      `error: ${unknownTool(
        options.tool,
        registry.list().map((t) => t.name),
        options,
      )}\n`,
    );
    return 2;
  }
  const published = registry.list().find((t) => t.name === tool.name);
  const args = await parseToolArgs(options.args, published?.inputSchema ?? {}, readStdin);
  if (!args.ok) {
    await writeErr(`error: ${args.error} Run 'twig-mcp call --help' for the forms ARGS can take.\n`);
    return 2;
  }
  const ctx = await createRuntimeContext(options);
  if (ctx === null) return 1;

  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once("SIGINT", onInterrupt);
  const result = await registry.call(tool, args.value, ctx, abort.signal);
  process.off("SIGINT", onInterrupt);

  if (options.json) {
    await writeJson(`${textOf(result)}\n`);
    return result.isError ? 1 : 0;
  }
  return printResult(result);
}

async function printResult(result: CallToolResult): Promise<number> {
  const envelope = JSON.parse(textOf(result)) as {
    data?: Record<string, unknown>;
    error?: { code: string; message: string; hint?: string };
  };
  if (result.isError || envelope.error) {
    const error = envelope.error ?? { code: "internal", message: textOf(result) };
    await writeErr(`error [${error.code}]: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ""}`);
    return 1;
  }
  await writeOut(renderToolData(envelope.data ?? {}));
  return 0;
}

function textOf(result: CallToolResult): string {
  return result.content[0]?.text ?? "";
}

function unknownTool(name: string, enabled: string[], options: CallOptions): string {
  const guess = closest(name, enabled);
  const disabled = options.disabled.size > 0 ? ` (groups turned off: ${[...options.disabled].join(", ")})` : "";
  return `unknown tool '${name}'${disabled}.${guess ? ` Did you mean 'twig-mcp call ${guess}'?` : ""} List the tools with 'twig-mcp tools'.`;
}

async function readStdin(): Promise<string> {
  return await new Response(Bun.stdin.stream()).text();
}

/**
 * The tool's arguments from the command line: nothing, one JSON object, `-` (a JSON object on
 * standard input), or `key=value` words. A value stays a string where the tool's schema expects
 * a string (so `branch=1234` is the branch "1234"), and is read as JSON elsewhere (`number=42`).
 */
export async function parseToolArgs(
  words: readonly string[],
  inputSchema: JsonObject,
  stdin: () => Promise<string>,
): Promise<Result<Record<string, unknown>, string>> {
  if (words.length === 0) return ok({});
  const [first] = words as [string];
  if (words.length === 1 && (first === "-" || first.trimStart().startsWith("{"))) {
    const source = first === "-" ? await stdin() : first;
    return parseObject(source, first === "-" ? "standard input" : "the arguments");
  }
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonObject>;
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) {
      return err(`'${word}' is not key=value; pass a JSON object ('{"branch":"main"}') or key=value pairs.`);
    }
    const key = word.slice(0, at);
    args[key] = coerce(word.slice(at + 1), properties[key]);
  }
  return ok(args);
}

function parseObject(text: string, where: string): Result<Record<string, unknown>, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return err(`${where} are not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err(`${where} must be a JSON object, such as '{"branch":"main"}'.`);
  }
  return ok(value as Record<string, unknown>);
}

function coerce(raw: string, schema: JsonObject | undefined): unknown {
  if (schema !== undefined && acceptsString(schema)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function acceptsString(schema: JsonObject): boolean {
  const type = schema.type;
  if (type === "string" || (Array.isArray(type) && type.includes("string"))) return true;
  const variants = [...((schema.anyOf as JsonObject[]) ?? []), ...((schema.oneOf as JsonObject[]) ?? [])];
  return variants.some(acceptsString);
}
