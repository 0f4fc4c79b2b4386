/**
 * Answers a handler keeps and hands out again while what they were computed from is unchanged
 * (the same parsed state file, the same branches). The registry validates such an answer and
 * serialises it once, not on every call, so nothing may change one after it is marked: handlers
 * build a new answer instead, and consumers (the envelope, prompts, resources) only read.
 */
const reusable = new WeakSet<object>();

export function reusableAnswer<T extends object>(answer: T): T {
  reusable.add(Object.freeze(answer));
  return answer;
}

export function isReusableAnswer(value: unknown): boolean {
  return typeof value === "object" && value !== null && reusable.has(value);
}

/** Per source, how many keyed answers are kept before they are dropped together. */
const KEYED_CAPACITY = 512;
const keyed = new WeakMap<object, Map<string, object>>();

/**
 * The reusable answer for `key` among those drawn from `source` (a parsed state file): made once
 * by `make` and handed out again while the cache hands back the same `source`. A client asking
 * about thousands of branches only grows the map to {@link KEYED_CAPACITY} before it starts over.
 */
export function keyedAnswer<T extends object>(source: object, key: string, make: () => T): T {
  let answers = keyed.get(source);
  if (answers === undefined) {
    answers = new Map();
    keyed.set(source, answers);
  }
  let answer = answers.get(key) as T | undefined;
  if (answer === undefined) {
    if (answers.size >= KEYED_CAPACITY) answers.clear();
    answer = reusableAnswer(make());
    answers.set(key, answer);
  }
  return answer;
}

/**
 * `answer`, or the equal answer handed out before for `source`: for answers whose inputs are
 * cheap to gather but that would cost more to validate and serialise again than to compare as JSON.
 */
export function canonicalAnswer<T extends object>(source: object, kind: string, answer: T): T {
  return keyedAnswer(source, `${kind}\0${JSON.stringify(answer)}`, () => answer);
}
