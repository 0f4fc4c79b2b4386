/** Words longer than this are not compared: a "did you mean" for a paragraph helps nobody and costs O(n·m). */
const LONGEST_COMPARED = 64;

/** Close names listed in a "did you mean": more would be a list, not a suggestion. */
const MAX_SUGGESTIONS = 5;

/** Every candidate close to a mistyped word, closest first (ties in the candidates' order), at most five. */
export function closeNames(word: string, candidates: readonly string[]): string[] {
  if (word.length <= 2 || word.length > LONGEST_COMPARED) return [];
  // Beyond a third of the word, a "did you mean" is more confusing than helpful.
  const limit = Math.max(2, Math.floor(word.length / 3));
  const lower = word.toLowerCase();
  const close: Array<{ candidate: string; distance: number }> = [];
  for (const candidate of new Set(candidates)) {
    // The distance is at least the difference in length: a long candidate costs nothing to skip.
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit) close.push({ candidate, distance });
  }
  // Array#sort is stable: equal distances keep the candidates' order.
  return close
    .sort((a, b) => a.distance - b.distance)
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

/** Levenshtein distance; the words here are a few characters long. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
