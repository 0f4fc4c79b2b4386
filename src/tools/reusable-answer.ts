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
