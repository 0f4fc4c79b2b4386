/**
 * git's `wildmatch` with `WM_PATHNAME`, as `includeIf` conditions use it: `*` and `?` stop at `/`,
 * `**` between slashes (or at either end) spans any number of directories, `[...]` is a set
 * (`!` or `^` negates, ranges allowed), and `\` escapes the next character.
 *
 * Hand-written rather than compiled to a RegExp: patterns and branch names come from a cloned
 * repository's config and HEAD, and a backtracking engine given `*a*a*a…b` against a long name
 * takes exponential time. Here the pattern becomes a list of steps and the text is run through
 * all of them at once (a set of live steps, as a Thompson NFA does), so a match costs at most
 * pattern length × text length, whatever the pattern.
 */
export function wildmatch(pattern: string, text: string, ignoreCase = false): boolean {
  const steps = compile(Array.from(pattern), ignoreCase);
  return steps !== null && run(steps, Array.from(text));
}

/**
 * A belt on top of the linear matcher: no real `includeIf` pattern is this long, and the cost of a
 * match grows with it. A longer pattern never matches, so its include is skipped.
 */
export const MAX_PATTERN_CHARS = 4096;

/**
 * One element of the pattern: the characters it consumes (`*`, `?` and sets never take `/`), and
 * whether it repeats. A `star` (`*`, or a trailing `**`: anything at all) takes any run of
 * characters, none included; a `dirs` (`**\/`) takes zero or more whole directories, each ending in `/`.
 */
type Step = { accepts: (c: string) => boolean; repeat?: "star" | "dirs" };

const notSlash = (c: string) => c !== "/";
const anything = () => true;

type SetItem = { from: string; to: string };

function compile(pattern: readonly string[], ignoreCase: boolean): Step[] | null {
  if (pattern.length > MAX_PATTERN_CHARS) return null;
  const steps: Step[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    const set = c === "[" ? characterSet(pattern, i, ignoreCase) : null;
    if (set !== null) {
      steps.push(set.step);
      i = set.end;
    } else if (c === "*") {
      let end = i + 1;
      while (pattern[end] === "*") end++;
      const atStart = i === 0 || pattern[i - 1] === "/";
      const atEnd = end === pattern.length || pattern[end] === "/";
      if (end - i < 2 || !atStart || !atEnd) {
        steps.push({ accepts: notSlash, repeat: "star" });
      } else if (end === pattern.length) {
        steps.push({ accepts: anything, repeat: "star" });
      } else {
        steps.push({ accepts: anything, repeat: "dirs" });
        end++;
      }
      i = end;
    } else if (c === "?") {
      steps.push({ accepts: notSlash });
      i++;
    } else {
      // `\` escapes the next character; a trailing one stands for itself.
      if (c === "\\" && i + 1 < pattern.length) i++;
      const char = fold(pattern[i] as string, ignoreCase);
      steps.push({ accepts: (x) => fold(x, ignoreCase) === char });
      i++;
    }
  }
  return steps;
}

/** `[...]` from `start`; `null` when it is not closed (then `[` is an ordinary character). */
function characterSet(
  pattern: readonly string[],
  start: number,
  ignoreCase: boolean,
): { step: Step; end: number } | null {
  let i = start + 1;
  const negate = pattern[i] === "!" || pattern[i] === "^";
  if (negate) i++;
  // A `]` right after the opening (or after `!`) is a member, not the end.
  const first = i;
  const items: SetItem[] = [];
  while (i < pattern.length) {
    let c = pattern[i] as string;
    if (c === "]" && i > first) {
      return { step: { accepts: (x) => x !== "/" && inSet(items, x, ignoreCase) !== negate }, end: i + 1 };
    }
    if (c === "\\" && i + 1 < pattern.length) {
      c = pattern[++i] as string;
    } else if (pattern[i + 1] === "-" && i + 2 < pattern.length && pattern[i + 2] !== "]") {
      items.push({ from: c, to: pattern[i + 2] as string });
      i += 3;
      continue;
    }
    const single = fold(c, ignoreCase);
    items.push({ from: single, to: single });
    i++;
  }
  return null;
}

const fold = (c: string, ignoreCase: boolean) => (ignoreCase ? c.toLowerCase() : c);

function inSet(items: readonly SetItem[], c: string, ignoreCase: boolean): boolean {
  const candidates = ignoreCase ? [c, c.toLowerCase(), c.toUpperCase()] : [c];
  return candidates.some((candidate) => items.some(({ from, to }) => candidate >= from && candidate <= to));
}

/**
 * Live states are step indexes; state `steps.length` means the pattern is used up. A repeating
 * state stays live after consuming, and may also be passed over without consuming anything. `dirs`
 * is entered in two forms: passed over (zero directories) or looping over characters, leaving only
 * right after a `/`.
 */
function run(steps: readonly Step[], text: readonly string[]): boolean {
  const size = steps.length + 1;
  let live = new Uint8Array(size);
  let next = new Uint8Array(size);
  addWithSkips(steps, live, 0);
  for (const c of text) {
    next.fill(0);
    let any = false;
    for (let s = 0; s < steps.length; s++) {
      const step = steps[s] as Step;
      if (live[s] === 0 || !step.accepts(c)) continue;
      any = true;
      if (step.repeat === "star") {
        // Still in the repeat, and free to move past it.
        addWithSkips(steps, next, s);
      } else if (step.repeat === "dirs") {
        if (next[s] === 0) next[s] = LOOPING;
        if (c === "/") addWithSkips(steps, next, s + 1);
      } else {
        addWithSkips(steps, next, s + 1);
      }
    }
    if (!any) return false;
    [live, next] = [next, live];
  }
  return live[steps.length] !== 0;
}

/** A `dirs` state live inside its loop, which may not be passed over. */
const LOOPING = 1;
/** A state live together with every state reachable from it without consuming. */
const CLOSED = 2;

/** Marks `from` live, with every state reachable from it without consuming a character. */
function addWithSkips(steps: readonly Step[], live: Uint8Array, from: number): void {
  for (let s = from; ; s++) {
    // A closed state's skips are already live, so a chain of stars is walked once per character.
    if (live[s] === CLOSED) return;
    live[s] = CLOSED;
    if (steps[s]?.repeat === undefined) return;
  }
}
