import type { ReplyBudget } from "../tools/define.ts";

/** Claude Code refuses a tool result over 25,000 tokens by default (`MAX_MCP_OUTPUT_TOKENS`); this leaves room. */
export const DEFAULT_MAX_REPLY_TOKENS = 20_000;

/** Tokens estimated from bytes (issue 16); branch lists run denser, see docs/performance.md. */
export const BYTES_PER_TOKEN = 3;

export const MAX_REPLY_TOKENS_ENV = "TWIG_MCP_MAX_REPLY_TOKENS";

/** `{"status":"ok","data":` and `}`: what the text envelope adds around the answer's JSON. */
const ENVELOPE_BYTES = 23;

/** Claude Code keeps a tool result of up to this many characters inline, and saves a longer one to a file. */
export const CLAUDE_CODE_INLINE_CHARS = 50_000;

/** The most a tool may raise that limit to with `anthropic/maxResultSizeChars`. */
export const CLAUDE_CODE_MAX_RESULT_CHARS = 500_000;

/**
 * The `anthropic/maxResultSizeChars` that keeps a reply of `maxTokens` (0 = unlimited) inline in
 * Claude Code: the whole text content (envelope included; a character is at least a byte), or
 * `null` when Claude Code keeps such a reply inline anyway.
 */
export function maxResultSizeChars(maxTokens: number): number | null {
  const chars = maxTokens === 0 ? CLAUDE_CODE_MAX_RESULT_CHARS : maxTokens * BYTES_PER_TOKEN;
  return chars <= CLAUDE_CODE_INLINE_CHARS ? null : Math.min(chars, CLAUDE_CODE_MAX_RESULT_CHARS);
}

/** UTF-8 length without keeping the bytes. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The budget for `maxTokens` (0 = unlimited, `null`), in bytes of answer JSON. */
export function replyBudget(maxTokens: number): ReplyBudget | null {
  if (maxTokens === 0) return null;
  const bytes = Math.max(0, maxTokens * BYTES_PER_TOKEN - ENVELOPE_BYTES);
  return { tokens: maxTokens, bytes, size: (value) => utf8Length(JSON.stringify(value) ?? "") };
}

/** A token count as the flag or variable gives it: a whole number, 0 or more. `null` when it is not one. */
export function parseMaxReplyTokens(text: string): number | null {
  if (!/^\d{1,9}$/.test(text.trim())) return null;
  return Number(text.trim());
}

/** Which budget applies: the flag, else the environment variable, else the default. Warns about a bad variable. */
export function chooseMaxReplyTokens(
  flag: number | null,
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string) => void,
): number {
  if (flag !== null) return flag;
  const raw = env[MAX_REPLY_TOKENS_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_MAX_REPLY_TOKENS;
  const parsed = parseMaxReplyTokens(raw);
  if (parsed === null) {
    warn(
      `${MAX_REPLY_TOKENS_ENV}=${JSON.stringify(raw.slice(0, 40))} is not a whole number of tokens; using ${DEFAULT_MAX_REPLY_TOKENS}`,
    );
    return DEFAULT_MAX_REPLY_TOKENS;
  }
  return parsed;
}

/** Tokens as the model reads them in a message: the estimate for `bytes`. */
export function estimatedTokens(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}
