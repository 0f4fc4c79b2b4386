import type { ReplyBudget } from "../tools/define.ts";

/** Claude Code refuses a tool result over 25,000 tokens by default (`MAX_MCP_OUTPUT_TOKENS`); this leaves room. */
export const DEFAULT_MAX_REPLY_TOKENS = 20_000;

/** The budget's unit: a third of a token, so ordinary ASCII JSON costs about a unit a character. */
export const UNITS_PER_TOKEN = 3;

export const MAX_REPLY_TOKENS_ENV = "TWIG_MCP_MAX_REPLY_TOKENS";

/** `{"status":"ok","data":` and `}`: what the text envelope adds around the answer's JSON. */
const ENVELOPE_UNITS = 40;

/** Claude Code saves a tool result longer than this to a file, unless `anthropic/maxResultSizeChars` raises it. */
const CLAUDE_CODE_INLINE_CHARS = 50_000;

/** The most a tool may raise that limit to. */
export const CLAUDE_CODE_MAX_RESULT_CHARS = 500_000;

/**
 * The `anthropic/maxResultSizeChars` that keeps a reply of `maxTokens` (0 = unlimited) inline in
 * Claude Code: the most characters a reply within that budget can hold, or `null` when Claude Code
 * keeps such a reply inline anyway.
 */
export function maxResultSizeChars(maxTokens: number): number | null {
  const chars = maxTokens === 0 ? CLAUDE_CODE_MAX_RESULT_CHARS : Math.ceil(maxTokens * MOST_CHARS_PER_TOKEN);
  return chars <= CLAUDE_CODE_INLINE_CHARS ? null : Math.min(chars, CLAUDE_CODE_MAX_RESULT_CHARS);
}

/*
 * Tokens estimated from characters, from above. Bytes alone cannot do it: ordinary JSON runs at
 * 2.6 bytes a token, hex and base64 names at 2.1–2.3, random Hangul at 1.2. The tokenizer first
 * splits text where letters, digits, punctuation and spaces meet, and each piece is at least one
 * token; so the text is read as runs of one class. A run costs what the tokenizer spends at worst
 * on random characters of its class (0.65 of a token a lowercase letter, 0.7 a capital, 0.5 a
 * digit, 0.85 a punctuation mark), never less than a token; the words and punctuation of
 * twig-mcp's own JSON (its keys and fixed values) and common branch prefixes cost what they do,
 * since they are most of an ordinary reply. A character outside ASCII costs a token per UTF-8
 * byte, the most a byte-level tokenizer can spend on it, except the box-drawing characters trees
 * are drawn with. Calibrated against `@anthropic-ai/tokenizer` (test/mcp/token-estimate.test.ts).
 * Counting with the tokenizer itself would cost start-up time and megabytes of vocabulary.
 *
 * Costs are in units, a third of a token.
 */
/** Every run of one class is at least a token. */
const MIN_RUN = 3;
/** A UTF-8 byte outside ASCII. */
const BYTE = 3;
/** `│`, `├`, `└` are two tokens each and `─` one, where other three-byte characters may be three. */
const BOX: Readonly<Record<number, number>> = { 9474: 6, 9500: 6, 9492: 6, 9472: 3 };

/** Each of the space-separated `runs`, costing `tokens`. */
const known = (tokens: number, runs: string) => runs.split(" ").map((run): [string, number] => [run, tokens]);
/** Lowercase words of twig-mcp's replies and branch names, by the tokens each is (quoted, as in JSON). */
export const KNOWN_WORDS: ReadonlyMap<string, number> = new Map([
  ...known(
    1,
    "at author base body branch branches checks code created cursor cycle data default description dev develop " +
      "docs draft error false feat feature fix has head hint issue issues jira key labels main master merged message " +
      "more next null number ok parent pr priority pull release reporter repositories repository request requested " +
      "requests reviews root sha stack state status statuses summary test text title total tree true truncated type " +
      "unavailable updated url warnings user users pending passing approved open closed none changes login",
  ),
  ...known(
    2,
    "unborn worktrees mergeable reviewers assignee omitted bugfix hotfix chore refactor failing commented verdict",
  ),
]);
/** Runs of JSON punctuation, by the tokens each is. */
export const KNOWN_PUNCTUATION: ReadonlyMap<string, number> = new Map([
  ...known(1, '":" "," ": ," "} {" ":[{" "}] ":{" },{" ":[ ]," - _ / . : " , { } [ ] "}, }, }] "] "]," ":[ }}'),
  ...known(2, '"},{" "}]} "}," ":[] }]} }}," "}}," ":[]," }],"'),
]);
const LONGEST_WORD = 12;
const LONGEST_PUNCTUATION = 6;

enum Kind {
  Lower,
  Upper,
  Digit,
  Space,
  Punct,
  Other,
}

/** Each ASCII character's kind, looked up rather than tested, and each kind's cost. */
const CLASSES = [/[a-z]/, /[A-Z]/, /[0-9]/, /[ \t\n]/, /./s];
/** Lower, Upper, Digit, Space, Punct: the per-character costs above, in units. */
const KIND_COST = [1.95, 2.1, 1.5, 1.2, 2.55];
const ASCII_KIND = Array.from(
  { length: 128 },
  (_, c): Kind => CLASSES.findIndex((r) => r.test(String.fromCharCode(c))),
);

/** Budget units `text` costs: an estimate of three times its tokens, from above. */
export function textUnits(text: string): number {
  let units = 0;
  let run = 0;
  let start = 0;
  let previous = -1;
  /** What the run from `start` to `end` costs: a known word or punctuation what it is, else its characters. */
  const runCost = (end: number): number => {
    const length = end - start;
    if (previous === Kind.Lower && length <= LONGEST_WORD) {
      const known = KNOWN_WORDS.get(text.slice(start, end));
      if (known !== undefined) return known * MIN_RUN;
    } else if (previous === Kind.Punct && length <= LONGEST_PUNCTUATION) {
      const known = KNOWN_PUNCTUATION.get(text.slice(start, end));
      if (known !== undefined) return known * MIN_RUN;
    }
    return Math.max(MIN_RUN, run);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let kind: Kind;
    let cost: number;
    if (c < 128) {
      kind = ASCII_KIND[c] as Kind;
      cost = KIND_COST[kind] as number;
    } else {
      kind = Kind.Other;
      // A surrogate is half of a four-byte character.
      cost = BOX[c] ?? (c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3) * BYTE;
    }
    // An uppercase letter starting a word belongs to the run of lowercase after it.
    if (kind !== previous && !(previous === Kind.Upper && kind === Kind.Lower)) {
      if (previous !== -1) units += runCost(i);
      run = 0;
      start = i;
    }
    run += cost;
    previous = kind;
  }
  return Math.ceil(previous === -1 ? 0 : units + runCost(text.length));
}

/** What a character costs at least: a letter of the longest known word. */
const LEAST_PER_CHARACTER = MIN_RUN / LONGEST_WORD;
const MOST_CHARS_PER_TOKEN = UNITS_PER_TOKEN / LEAST_PER_CHARACTER;
/** What a UTF-16 code unit costs at most: a three-byte character outside ASCII (ASCII costs less). */
export const MOST_PER_CHARACTER = 3 * BYTE;

/**
 * {@link textUnits} as far as comparing with `limit` needs it, without reading the text when its
 * length alone settles that: an upper bound within `limit` for a short reply (most replies), a
 * lower bound past it for a megabyte answer that must be cut, and the estimate itself otherwise.
 */
export function unitsUpTo(text: string, limit: number): number {
  const most = text.length * MOST_PER_CHARACTER;
  if (most <= limit) return most;
  const least = Math.ceil(text.length * LEAST_PER_CHARACTER);
  return least > limit ? least : textUnits(text);
}

/** The budget for `maxTokens` (0 = unlimited, `null`), in units of answer JSON. */
export function replyBudget(maxTokens: number): ReplyBudget | null {
  if (maxTokens === 0) return null;
  const units = Math.max(0, maxTokens * UNITS_PER_TOKEN - ENVELOPE_UNITS);
  return { tokens: maxTokens, units, size: (value) => textUnits(JSON.stringify(value) ?? "") };
}

/** A token count as the flag or variable gives it: a whole number, 0 or more. `null` when it is not one. */
export function parseMaxReplyTokens(text: string): number | null {
  return /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : null;
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
  }
  return parsed ?? DEFAULT_MAX_REPLY_TOKENS;
}
