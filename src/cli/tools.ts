import { err, ok, type Result } from "../core/result.ts";
import { readSettings } from "../core/settings.ts";
import { closeNames, orList } from "../core/suggest.ts";
import type { JsonObject } from "../mcp/json-schema.ts";
import type { CallOptions, ToolsOptions } from "./args.ts";
import { renderToolData, toolData, writeErr, writeJson, writeOut } from "./output.ts";
import { createRuntimeContext, createToolRegistry } from "./runtime.ts";

/** `twig-mcp tools`: what a client would see in tools/list, for people (one line each) or programs (--json). */
export async function runTools(options: ToolsOptions): Promise<number> {
  const registry = createToolRegistry(options.disabled);
  const tools = registry.list();
  if (options.json) {
    await writeJson(`${JSON.stringify({ tools }, null, 2)}\n`);
    return 0;
  }
  const rows = tools.map((t) => [t.name, registry.get(t.name)?.group ?? "", firstSentence(t.description)] as const);
  const width = (i: 0 | 1) => Math.max(0, ...rows.map((row) => row[i].length));
  const [nameWidth, groupWidth] = [width(0), width(1)];
  await writeOut(
    rows.map(([name, group, about]) => `${name.padEnd(nameWidth)}  ${group.padEnd(groupWidth)}  ${about}\n`).join(""),
  );
  return 0;
}

/** Tool descriptions are written for models and run to several sentences; a listing needs the first. */
function firstSentence(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  const end = text.search(/[.!?](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

/** `twig-mcp call <tool> [args]`: one tools/call through the server's registry, validation and envelope. */
export async function runCall(options: CallOptions): Promise<number> {
  const maxReplyTokens = options.maxReplyTokens ?? readSettings(process.env).maxReplyTokens;
  const registry = createToolRegistry(options.disabled, maxReplyTokens);
  const tool = registry.get(options.tool);
  if (!tool) {
    const guesses = closeNames(options.tool, registry.names());
    const off = options.disabled.size > 0 ? ` (groups turned off: ${[...options.disabled].join(", ")})` : "";
    const advice = guesses.length > 0 ? ` Did you mean ${orList(guesses, (name) => `twig-mcp call ${name}`)}?` : "";
    return writeErr(`error: unknown tool '${options.tool}'${off}.${advice} List the tools with 'twig-mcp tools'.\n`, 2);
  }
  const schema = registry.list().find((t) => t.name === tool.name)?.inputSchema ?? {};
  const args = await parseToolArgs(options.args, schema);
  if (!args.ok) return writeErr(`error: ${args.error} Run 'twig-mcp call --help' for the forms ARGS can take.\n`, 2);
  const ctx = await createRuntimeContext(options);
  if (ctx === null) return 1;

  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once("SIGINT", onInterrupt);
  const result = await registry.call(tool, args.value, ctx, abort.signal);
  process.off("SIGINT", onInterrupt);

  if (options.json) {
    await writeJson(`${result.content[0]?.text ?? ""}\n`);
    return result.isError ? 1 : 0;
  }
  const data = toolData(result);
  if (!data.ok) {
    const { code, message, hint } = data.error;
    return writeErr(`error [${code}]: ${message}\n${hint ? `hint: ${hint}\n` : ""}`, 1);
  }
  await writeOut(renderToolData(data.value));
  return 0;
}

/**
 * Nothing, one JSON object, `-` (one on standard input), or `key=value` words: a value stays a string
 * where the schema expects one (`branch=1234` is the branch "1234"), else is read as JSON (`number=42`).
 */
async function parseToolArgs(
  words: readonly string[],
  inputSchema: JsonObject,
): Promise<Result<Record<string, unknown>, string>> {
  if (words.length === 0) return ok({});
  const [first] = words as [string];
  if (words.length === 1 && (first === "-" || first.trimStart().startsWith("{"))) {
    const where = first === "-" ? "standard input" : "the arguments";
    let value: unknown;
    try {
      value = JSON.parse(first === "-" ? await new Response(Bun.stdin.stream()).text() : first);
    } catch (error) {
      return err(`${where} are not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return err(`${where} must be a JSON object, such as '{"branch":"main"}'.`);
    }
    return ok(value as Record<string, unknown>);
  }
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonObject>;
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) {
      return err(`'${word}' is not key=value; pass a JSON object ('{"branch":"main"}') or key=value pairs.`);
    }
    const [key, raw] = [word.slice(0, at), word.slice(at + 1)];
    const schema = properties[key];
    try {
      args[key] = schema !== undefined && acceptsString(schema) ? raw : JSON.parse(raw);
    } catch {
      args[key] = raw;
    }
  }
  return ok(args);
}

function acceptsString(schema: JsonObject): boolean {
  const type = schema.type;
  if (type === "string" || (Array.isArray(type) && type.includes("string"))) return true;
  const variants = [...((schema.anyOf as JsonObject[]) ?? []), ...((schema.oneOf as JsonObject[]) ?? [])];
  return variants.some(acceptsString);
}
