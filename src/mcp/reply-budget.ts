import type { ReplyBudget } from "../tools/shared/define.ts";

/** The budget's unit: a third of a token, so ordinary ASCII JSON costs about a unit a character. */
export const UNITS_PER_TOKEN = 3;

/** `{"status":"ok","data":` and `}`: what the text envelope adds around the answer's JSON. */
const ENVELOPE_UNITS = 40;

/** Claude Code saves a tool result longer than this to a file, unless `anthropic/maxResultSizeChars` raises it. */
const CLAUDE_CODE_INLINE_CHARS = 50_000;

/** The most a tool may raise that limit to. */
export const CLAUDE_CODE_MAX_RESULT_CHARS = 500_000;

/** The `anthropic/maxResultSizeChars` keeping a reply within `maxTokens` (0 = unlimited) inline; `null`: not needed. */
export function maxResultSizeChars(maxTokens: number): number | null {
  const chars = maxTokens === 0 ? CLAUDE_CODE_MAX_RESULT_CHARS : Math.ceil(maxTokens * MOST_CHARS_PER_TOKEN);
  return chars <= CLAUDE_CODE_INLINE_CHARS ? null : Math.min(chars, CLAUDE_CODE_MAX_RESULT_CHARS);
}

/*
 * Tokens estimated from characters, from above (bytes cannot: JSON runs at 2.6 bytes a token, random
 * Hangul at 1.2). The tokenizer splits text where letters, digits, punctuation and spaces meet, so a
 * run of one class costs at least a token, else what random characters of its class cost at worst;
 * twig-mcp's own JSON words cost what they do. Outside ASCII a UTF-8 byte is a token. Calibrated
 * against `@anthropic-ai/tokenizer` (test/mcp/token-estimate.test.ts), too big to ship. Costs are in units.
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
/** The longest known run: a longer one is not looked up. */
const LONGEST_WORD = 12;

/** A character's class: its index in CLASSES, or Other outside ASCII. */
const Kind = { Lower: 0, Upper: 1, Digit: 2, Space: 3, Punct: 4, Other: 5 } as const;

/** Each ASCII character's kind, looked up rather than tested, and each kind's cost. */
const CLASSES = [/[a-z]/, /[A-Z]/, /[0-9]/, /[ \t\n]/, /./s];
/** Lower, Upper, Digit, Space, Punct: the per-character costs above, in units. */
const KIND_COST = [1.95, 2.1, 1.5, 1.2, 2.55];
const ASCII_KIND = Array.from({ length: 128 }, (_, c) => CLASSES.findIndex((r) => r.test(String.fromCharCode(c))));

/** Budget units `text` costs: an estimate of three times its tokens, from above. */
export function textUnits(text: string): number {
  let units = 0;
  let run = 0;
  let start = 0;
  let previous = -1;
  /** What the run from `start` to `end` costs: a known word or punctuation what it is, else its characters. */
  const runCost = (end: number): number => {
    const known = previous === Kind.Lower ? KNOWN_WORDS : previous === Kind.Punct ? KNOWN_PUNCTUATION : null;
    const tokens = known && end - start <= LONGEST_WORD ? known.get(text.slice(start, end)) : undefined;
    return tokens === undefined ? Math.max(MIN_RUN, run) : tokens * MIN_RUN;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? (ASCII_KIND[c] as number) : Kind.Other;
    // A surrogate is half of a four-byte character.
    const wide = c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
    const cost = c < 128 ? (KIND_COST[kind] as number) : (BOX[c] ?? wide * BYTE);
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

/** {@link textUnits} as far as comparing with `limit` needs it: bounds from the length alone when they settle it. */
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
