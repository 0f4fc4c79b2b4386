import * as v from "valibot";
import type { ServiceContext } from "../services/services.ts";
import type { ListCut, ReplyBudget } from "./define.ts";
import { unpublished } from "./params.ts";

/**
 * The largest `n` in [min, max] for which `build(n)` fits the budget, by bisection (about 14
 * serialisations for 10,000 items). `itemSizes` narrows the search first: the parts' sizes nearly
 * add up to the whole's, so the count whose parts fit beside the wrapper usually fits, and the
 * count whose parts alone pass the budget does not. Returns `min` when even that does not fit; the
 * registry then refuses the reply.
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
    if (guess > low) {
      const candidate = build(guess);
      if (budget.size(candidate) <= budget.units) {
        low = guess;
        best = candidate;
      } else {
        high = guess - 1;
      }
    }
  }
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const candidate = build(middle);
    if (budget.size(candidate) <= budget.units) {
      low = middle;
      best = candidate;
    } else {
      high = middle - 1;
    }
  }
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

/** Formats a count the way a reader scans it: 9,412. */
export const count = (n: number): string => n.toLocaleString("en-US");

// The fields a cut reply adds: checked, but unpublished (tools/list must stay within 11.5 KB); the
// reply's `hint` explains them.

/** `truncated`: the reply was cut to fit the reply budget (`--max-reply-tokens`). */
export const TruncatedSchema = v.optional(v.pipe(v.literal(true), unpublished("field")));

/** A one-line `hint`: how to get what was left out. */
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
