/** Words longer than this are not compared: a "did you mean" for a paragraph helps nobody and costs O(n·m). */
const LONGEST_COMPARED = 64;

/** Close names listed in a "did you mean": more would be a list, not a suggestion. */
const MAX_SUGGESTIONS = 5;

/**
 * Every candidate close to a mistyped word, closest first (ties in the candidates' order), at most five. A candidate
 * that begins with the word but for one slip is as close (`feature/auht`: `feature/auth-ui`, `feature/auth-base`);
 * equals are ranked by the whole name's distance.
 */
export function closeNames(word: string, candidates: readonly string[]): string[] {
  if (word.length <= 2 || word.length > LONGEST_COMPARED) return [];
  // Beyond a third of the word, a "did you mean" is more confusing than helpful.
  const limit = Math.max(2, Math.floor(word.length / 3));
  const lower = word.toLowerCase();
  const close: Array<{ candidate: string; start: number; whole: number }> = [];
  for (const candidate of new Set(candidates)) {
    // The distance is at least the difference in length: a shorter candidate costs nothing to skip.
    if (word.length - candidate.length > limit) continue;
    const name = candidate.toLowerCase();
    // The whole name's distance only where it can be close; a longer name is compared by its start.
    const whole = candidate.length - word.length > limit ? Infinity : editDistance(lower, name);
    // One slip in how the name begins: `feature/bil…` is not `feature/auht` begun well.
    const begun = editDistance(lower, name.slice(0, word.length));
    const start = Math.min(whole, begun <= 1 ? begun : Infinity);
    if (start <= limit) close.push({ candidate, start, whole });
  }
  // Array#sort is stable: equal distances keep the candidates' order.
  return close
    .sort((a, b) => a.start - b.start || a.whole - b.whole)
    .slice(0, MAX_SUGGESTIONS)
    .map(({ candidate }) => candidate);
}

/** The closest candidate, or `null`: for a message with room for one name. */
export function closest(word: string, candidates: readonly string[]): string | null {
  return closeNames(word, candidates)[0] ?? null;
}

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: the names as a "did you mean" lists them. */
export function orList(names: readonly string[], shown: (name: string) => string = (name) => name): string {
  const quoted = names.map((name) => `'${shown(name)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** Edit distance with a swap of two neighbours as one edit (`auht`: `auth`); the words here are short. */
function editDistance(a: string, b: string): number {
  let [before, previous] = [[] as number[], Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      current.push(best);
    }
    [before, previous] = [previous, current];
  }
  return previous[b.length] as number;
}
