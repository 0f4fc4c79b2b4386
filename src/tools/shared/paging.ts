/**
 * Paging and the reply budget, the one path every tool cuts a reply by: the cursor a page ends with
 * and the next one starts from, the largest page (or prefix of a list) that fits the budget, and the
 * fields a cut reply carries to say what was left out.
 */
import * as v from "valibot";
import { toolError } from "../../core/errors.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { sha256Hex } from "../../core/sha256.ts";
import type { ServiceContext } from "./context.ts";
import type { ListCut, ReplyBudget } from "./define.ts";
import { unpublished } from "./params.ts";

/** A field left out of tools/list (it must stay within 12.8 KB); checked all the same, and docs/tools.md has it. */
export const hidden = <S extends v.GenericSchema>(schema: S) => v.pipe(schema, unpublished("field"));

/**
 * A cursor: the last item listed (its name or key), so items added or deleted between pages shift
 * nothing, and the question asked, bound to one repository. The digest catches edited cursors; it is
 * no secret, as a cursor only names a position anyone could ask for.
 */
type Position = { after: string; query: string | null };

const VERSION = 1;
const MAX_CURSOR_CHARS = 4096;

export const CursorSchema = v.pipe(
  v.string(),
  v.maxLength(MAX_CURSOR_CHARS),
  unpublished("maxLength"),
  v.description("A page's next_cursor."),
);

const PayloadSchema = v.tuple([v.literal(VERSION), v.string(), v.string(), v.nullable(v.string())]);

export function encodeCursor(position: Position, repository: string): string {
  const json = JSON.stringify([VERSION, repositoryTag(repository), position.after, position.query]);
  const payload = Buffer.from(json).toString("base64url");
  return `${payload}.${digest(payload)}`;
}

/** The position, or why the cursor cannot be used (for an `invalid_params` message). */
export function decodeCursor(
  text: string,
  repository: string,
): { ok: true; value: Position } | { ok: false; why: string } {
  const dot = text.indexOf(".");
  if (text.length > MAX_CURSOR_CHARS || dot < 0) return { ok: false, why: "it is not a cursor this server made" };
  const payload = text.slice(0, dot);
  if (text.slice(dot + 1) !== digest(payload)) {
    return { ok: false, why: "it was changed or cut short (its check digest does not match)" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return { ok: false, why: "it is not a cursor this server made" };
  }
  const fields = v.safeParse(PayloadSchema, parsed);
  if (!fields.success) return { ok: false, why: "it comes from another version of twig-mcp" };
  const [, tag, after, query] = fields.output;
  if (tag !== repositoryTag(repository)) return { ok: false, why: "it pages through another repository" };
  return { ok: true, value: { after, query } };
}

/**
 * Where a page starts: `null` without a cursor, else what `locate` makes of the cursor's position, which
 * `accepts` its question (by default: the same `query`). An `invalid_params` error names why not.
 */
export function resumeAfter<T>(
  cursor: string | undefined,
  repository: string,
  query: string | ((paged: string | null) => boolean),
  locate: (position: Position) => T | null,
): Result<T | null> {
  if (cursor === undefined) return ok(null);
  const decoded = decodeCursor(cursor, repository);
  const accepts = typeof query === "string" ? (paged: string | null) => paged === query : query;
  const at = decoded.ok && accepts(decoded.value.query) ? locate(decoded.value) : null;
  if (at !== null) return ok(at);
  const why = decoded.ok ? "it pages through another question, or the list changed since" : decoded.why;
  const hint =
    "Pass next_cursor exactly as the previous page gave it, with the same arguments, or start again without cursor.";
  return err(toolError("invalid_params", `cursor cannot be used: ${why}`, hint));
}

function digest(payload: string): string {
  return sha256Hex(`twig-mcp list_branches cursor\u0000${payload}`).slice(0, 16);
}

function repositoryTag(repository: string): string {
  return sha256Hex(repository).slice(0, 8);
}

/**
 * The largest `n` in [min, max] for which `build(n)` fits the budget, by bisection. `itemSizes`
 * narrows the search first: the parts' sizes nearly add up to the whole's. Returns `min` when even
 * that does not fit; the registry then refuses the reply.
 */
export function largestFitting<T>(
  budget: ReplyBudget,
  build: (n: number) => T,
  min: number,
  max: number,
  itemSizes?: (index: number) => number,
): T {
  let low = min;
  let high = max;
  let best = build(min);
  const base = budget.size(best);
  if (base > budget.units) return best;
  const attempt = (n: number) => {
    const candidate = build(n);
    if (budget.size(candidate) > budget.units) {
      high = n - 1;
    } else {
      low = n;
      best = candidate;
    }
  };
  if (itemSizes !== undefined) {
    let total = 0;
    let guess = min;
    for (let i = 0; i < max; i++) {
      total += itemSizes(i) + 1;
      if (total > budget.units) {
        high = Math.max(min, i);
        break;
      }
      if (i + 1 > min && base + total <= budget.units) guess = i + 1;
    }
    if (guess > low) attempt(guess);
  }
  while (low < high) attempt(Math.ceil((low + high) / 2));
  return best;
}

/**
 * A page of `total` items as the handler sends it: whole when it fits (or no budget applies), else the
 * largest page of at least `min` that does, as measured by `sent` (the reply with its invisible
 * characters shown). `shorter` builds a page of shortened items, tried when no page of `min` fits whole.
 */
export function fitPage<T>(
  budget: ReplyBudget | undefined,
  total: number,
  page: { build: (n: number) => T; sent?: (n: number) => T; min?: number; shorter?: (n: number) => T },
): T {
  const { build, sent = build, min = Math.min(1, total), shorter } = page;
  if (budget === undefined || budget.size(sent(total)) <= budget.units) return build(total);
  const fitted = largestFitting(budget, sent, min, total);
  if (shorter === undefined || budget.size(fitted) <= budget.units) return fitted;
  return largestFitting(budget, shorter, min, total);
}

/** `answer` with its list cut as `cut` declares it, to the largest prefix that fits. */
export function cutList<A extends Record<string, unknown>, I>(
  cut: ListCut<A, I>,
  answer: A,
  budget: ReplyBudget,
  args: I,
  ctx: ServiceContext,
): A {
  const all = answer[cut.list] as unknown[];
  const before = (answer.omitted as Record<string, number> | undefined)?.[cut.list] ?? 0;
  const build = (n: number): A => {
    const left = before + all.length - n;
    const list = { [cut.list]: all.slice(0, n), truncated: true, omitted: { [cut.list]: left } };
    return { ...answer, ...list, ...cut.rest(answer, n, left, args, ctx) };
  };
  return largestFitting(budget, build, cut.min ?? 0, all.length, (i) => budget.size(all[i]));
}

/**
 * Several lists cut to the same length `n`, the largest that fits: `lengths` names each list (for `omitted`),
 * `cut(n)` is the answer with each cut to its first `n`, the ones nearest what was asked.
 */
export function cutLists<A extends Record<string, unknown>>(
  budget: ReplyBudget,
  lengths: Record<string, number>,
  cut: (n: number) => A,
  hint: (omitted: Record<string, number>) => string,
): A {
  const longest = Math.max(0, ...Object.values(lengths));
  const build = (n: number): A => {
    const omitted = Object.fromEntries(
      Object.entries(lengths).flatMap(([list, all]) => (all > n ? [[list, all - n]] : [])),
    );
    return { ...cut(n), truncated: true, omitted, hint: hint(omitted) };
  };
  return largestFitting(budget, build, Math.min(1, longest), longest);
}

/** The cut of a search's `limit`ed list: `has_more`, and how to ask for fewer. */
export function limitCut(list: string, noun: string, narrow: string): ListCut<Record<string, unknown>, unknown> {
  return {
    list,
    rest: (answer, _kept, left) => ({
      has_more: true,
      hint: `${count(left)} of ${count((answer[list] as unknown[]).length)} ${noun} left out to fit the reply budget: lower limit, or narrow with ${narrow}.`,
    }),
  };
}

/** Formats a count the way a reader scans it: 9,412. */
export const count = (n: number): string => n.toLocaleString("en-US");

// The fields a cut reply adds are unpublished (tools/list must stay within 12.8 KB): its `hint` explains them.
export const TruncatedSchema = v.optional(v.pipe(v.literal(true), unpublished("field")));
export const HintSchema = v.optional(v.pipe(v.string(), unpublished("field")));

/** `truncated`, `omitted` (how many of each list named were left out) and `hint`, spread into an output schema. */
export function cutFields<const K extends string>(lists: readonly K[]) {
  const counts = Object.fromEntries(lists.map((key) => [key, v.optional(v.number())]));
  type Counts = Record<K, v.OptionalSchema<v.NumberSchema<undefined>, undefined>>;
  return {
    truncated: TruncatedSchema,
    omitted: v.optional(v.pipe(v.object(counts as Counts), unpublished("field"))),
    hint: HintSchema,
  };
}
