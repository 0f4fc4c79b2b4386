import * as v from "valibot";
import type { ServiceContext } from "./context.ts";
import type { ListCut, ReplyBudget } from "./define.ts";
import { unpublished } from "./params.ts";

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
