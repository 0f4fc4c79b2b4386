import type { ToolError } from "../core/errors.ts";
import { isReusableAnswer } from "../tools/reusable-answer.ts";

export interface CallToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/**
 * Upstream's envelope, kept byte-for-byte in the text content so existing prompts and parsers see
 * the same thing; `structuredContent` carries the bare data for clients that read it.
 */
export function okResult(data: Record<string, unknown>): CallToolResult {
  let text = reusableText.get(data);
  if (text === undefined) {
    // Exactly `JSON.stringify({ status: "ok", data })`, with the data serialised only once.
    text = `${OK_PREFIX}${JSON.stringify(data)}}`;
    if (isReusableAnswer(data)) reusableText.set(data, text);
  }
  return { content: [{ type: "text", text }], structuredContent: data, isError: false };
}

const OK_PREFIX = '{"status":"ok","data":';

/**
 * A reusable answer (tools/reusable-answer.ts) serialises the same every time: its envelope is
 * made once, and being the same string each time lets the reply writer reuse its work too.
 */
const reusableText = new WeakMap<object, string>();

/** The JSON of an `okResult`'s data, read back out of its text content. */
export function dataJsonOf(result: CallToolResult): string | undefined {
  const text = result.content[0]?.text;
  return !result.isError && text?.startsWith(OK_PREFIX) ? text.slice(OK_PREFIX.length, -1) : undefined;
}

export function errorResult(error: ToolError): CallToolResult {
  const body =
    error.hint === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, hint: error.hint };
  return {
    content: [{ type: "text", text: JSON.stringify({ status: "error", error: body }) }],
    isError: true,
  };
}
