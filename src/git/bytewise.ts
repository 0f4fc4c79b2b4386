/**
 * Orders strings by their UTF-8 bytes, which is how git sorts ref names (`git for-each-ref`,
 * `git branch`). JavaScript's `<` compares UTF-16 code units instead, which puts astral characters
 * (emoji, rare CJK) before U+E000–U+FFFF; UTF-8 byte order is code-point order, so the two only
 * disagree there.
 */
export function compareBytewise(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Moves surrogates (which encode code points above U+FFFF) after every other UTF-16 unit. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Sorts in place by UTF-8 bytes. Without astral characters UTF-16 order is the same order, and
 * the engine's own string sort is several times faster than any comparator written in JavaScript
 * (10,000 branch names: about 1 ms instead of 6).
 */
export function sortBytewise<T extends string>(list: T[]): T[] {
  return list.some((item) => SURROGATE.test(item)) ? list.sort(compareBytewise) : list.sort();
}
