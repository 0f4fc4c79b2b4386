import { escapeInvisibles, plainText } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CallToolResult } from "../mcp/tool-registry.ts";

/** Resolves once handed to the OS (an exit cannot cut off a piped answer); plain: data may carry terminal escapes. */
export function writeOut(text: string): Promise<void> {
  return write(process.stdout, plainText(text));
}

/** Like `writeOut`, on stderr; resolves to `code`, so that a command can end with `return writeErr(…, 1)`. */
export async function writeErr(text: string, code = 0): Promise<number> {
  await write(process.stderr, plainText(text));
  return code;
}

/** JSON for `--json`: the same value, with the characters a terminal would act on as `\uXXXX`. */
export function writeJson(json: string): Promise<void> {
  return write(process.stdout, escapeInvisibles(json));
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return text === "" ? Promise.resolve() : new Promise((done) => stream.write(text, () => done()));
}

/** Indented JSON, then each multi-line text field (a drawn tree) once more unescaped, for a person to read. */
export function renderToolData(data: Record<string, unknown>): string {
  // The JSON keeps every value: characters a terminal would act on stay escaped (`\uXXXX`).
  let text = `${escapeInvisibles(JSON.stringify(data, null, 2))}\n`;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string" && value.includes("\n")) text += `\n${key}:\n${value.replace(/\n?$/, "\n")}`;
  }
  return text;
}

type ShownError = { code: string; message: string; hint?: string };

/** A tools/call result's data, or its error (`internal`, with the raw text, when it carries neither). */
export function toolData(result: CallToolResult): Result<Record<string, unknown>, ShownError> {
  const text = result.content[0]?.text ?? "";
  const envelope = JSON.parse(text) as { data?: Record<string, unknown>; error?: ShownError };
  if (result.isError || envelope.error !== undefined || envelope.data === undefined) {
    return err(envelope.error ?? { code: "internal", message: text });
  }
  return ok(envelope.data);
}
