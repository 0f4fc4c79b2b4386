import { diff3Merge } from "node-diff3";
import type { WorkBudget } from "../objects/budget.ts";

/** Lines of one conflict in the branch's version, 1-based and inclusive; an empty side is the line it would precede. */
export type LineRange = { start: number; end: number };

export type TextMerge = { merged: Uint8Array } | { conflicts: LineRange[] } | { tooCostly: true };

/**
 * node-diff3's LCS does work for every pair of equal lines and rescans its candidates, so a file of
 * repeated lines takes seconds (2,000 equal lines: 5 s): past these the file is `unknown`, not a stall.
 */
const MAX_EQUAL_LINE_PAIRS = 1_000_000;
/** Below this many lines in the middle, even all-equal lines cost little: the pairs are not counted. */
const CHEAP_LINES = 200;
const MAX_LINE_PRODUCT = 25_000_000;

/** As git (`buffer_is_binary`): a NUL byte in the first 8,000 bytes. */
export function isBinary(data: Uint8Array): boolean {
  return data.subarray(0, 8000).includes(0);
}

/** Lines as git compares them: split after each `\n`, the `\r` of CRLF kept, byte-exact (latin1). */
function linesOf(data: Uint8Array): string[] {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
  const lines: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf("\n", start);
    lines.push(text.slice(start, end < 0 ? text.length : end + 1));
    start = end < 0 ? text.length : end + 1;
  }
  return lines;
}

function equalLinePairs(x: string[], y: string[]): number {
  const counts = new Map<string, number>();
  for (const line of x) counts.set(line, (counts.get(line) ?? 0) + 1);
  let pairs = 0;
  for (const line of y) pairs += counts.get(line) ?? 0;
  return pairs;
}

/** Where `x` differs from `o`, in `o`'s lines: past their common first and last lines, as xdiff trims. */
function changedSpan(o: string[], x: string[]): [number, number] {
  let head = 0;
  while (head < o.length && head < x.length && o[head] === x[head]) head++;
  let tail = 0;
  while (tail < o.length - head && tail < x.length - head && o[o.length - 1 - tail] === x[x.length - 1 - tail]) tail++;
  return [head, o.length - tail];
}

const bytesOf = (lines: string[]) => ({ merged: Buffer.from(lines.join(""), "latin1") });

/**
 * git's default 3-way merge of text (`xdl_merge`): the same change on both sides is clean; changes to
 * the same or adjacent lines conflict.
 */
export function mergeText(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, budget?: WorkBudget): TextMerge {
  const [o, a, b] = [linesOf(base), linesOf(ours), linesOf(theirs)];
  // Counted for every file: a tree can repeat one costly file at many paths, each merged anew.
  if (budget !== undefined) budget.mergeLinePairs += o.length + a.length + b.length;
  // xdiff's hunks lie inside these spans; spans a line or more apart cannot conflict, and need no diff.
  const [[fromA, toA], [fromB, toB]] = [changedSpan(o, a), changedSpan(o, b)];
  if (toA < fromB) return bytesOf([...a.slice(0, fromB + a.length - o.length), ...b.slice(fromB)]);
  if (toB < fromA) return bytesOf([...b.slice(0, fromA + b.length - o.length), ...a.slice(fromA)]);
  // Lines common to all three at both ends are set aside: the library sees only the changed middle.
  const [head, tail] = [Math.min(fromA, fromB), o.length - Math.max(toA, toB)];
  const middle = (lines: string[]) => lines.slice(head, lines.length - tail);
  const [mo, ma, mb] = [middle(o), middle(a), middle(b)];
  if (mo.length * Math.max(ma.length, mb.length) > MAX_LINE_PRODUCT) return { tooCostly: true };
  const pairs = equalLinePairs(mo, ma) + equalLinePairs(mo, mb);
  if (budget !== undefined) budget.mergeLinePairs += pairs;
  if (Math.max(mo.length, ma.length, mb.length) > CHEAP_LINES && pairs > MAX_EQUAL_LINE_PAIRS)
    return { tooCostly: true };
  const merged: string[] = [];
  const conflicts: LineRange[] = [];
  for (const region of diff3Merge(ma, mo, mb)) {
    if (region.ok !== undefined) merged.push(...region.ok);
    else if (region.conflict !== undefined) {
      const start = head + region.conflict.bIndex + 1;
      conflicts.push({ start, end: Math.max(start, start + region.conflict.b.length - 1) });
    }
  }
  if (conflicts.length > 0) return { conflicts };
  return bytesOf([...o.slice(0, head), ...merged, ...o.slice(o.length - tail)]);
}
