/** Words longer than this are not compared: a "did you mean" for a paragraph helps nobody and costs O(n·m). */
const LONGEST_COMPARED = 64;

/** The candidate a mistyped word was most likely meant to be, or `null` when none is close. */
export function closest(word: string, candidates: readonly string[]): string | null {
  if (word.length <= 2 || word.length > LONGEST_COMPARED) return null;
  let best: string | null = null;
  // Beyond a third of the word, a "did you mean" is more confusing than helpful.
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: a long candidate costs nothing to skip.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
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
