import type { ToolError } from "../core/errors.ts";
import { visible } from "../core/plain-text.ts";

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
export function okResult(data: Record<string, unknown>, json: string = JSON.stringify(data)): CallToolResult {
  // Exactly `JSON.stringify({ status: "ok", data })`, without copying `data` into a new object.
  const text = `{"status":"ok","data":${json}}`;
  return { content: [{ type: "text", text }], structuredContent: data, isError: false };
}

export function errorResult(error: ToolError): CallToolResult {
  // Messages may repeat what others wrote: no invisible or control character reaches the model.
  const message = visible(error.message);
  const body =
    error.hint === undefined ? { code: error.code, message } : { code: error.code, message, hint: visible(error.hint) };
  return {
    content: [{ type: "text", text: JSON.stringify({ status: "error", error: body }) }],
    isError: true,
  };
}
