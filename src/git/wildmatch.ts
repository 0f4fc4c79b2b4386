/**
 * git's `wildmatch` with `WM_PATHNAME`, as `includeIf` conditions use it: `*` and `?` stop at `/`,
 * `**` between slashes (or at either end) spans any number of directories, `[...]` is a set
 * (`!` or `^` negates, ranges allowed), and `\` escapes the next character.
 */
export function wildmatch(pattern: string, text: string, ignoreCase = false): boolean {
  return compile(pattern, ignoreCase).test(text);
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  let source = "";
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "*") {
      if (pattern.charAt(i + 1) === "*") {
        const atStart = i === 0 || pattern.charAt(i - 1) === "/";
        let end = i + 2;
        while (pattern.charAt(end) === "*") end++;
        const atEnd = end === pattern.length || pattern.charAt(end) === "/";
        if (atStart && atEnd) {
          if (end === pattern.length) {
            source += ".*";
            i = end;
          } else {
            // `**/` matches zero or more whole directories.
            source += "(?:.*/)?";
            i = end + 1;
          }
          continue;
        }
      }
      source += "[^/]*";
      i = pattern.charAt(i + 1) === "*" ? skipStars(pattern, i) : i + 1;
      continue;
    }
    if (c === "?") {
      source += "[^/]";
      i++;
      continue;
    }
    if (c === "[") {
      const set = characterSet(pattern, i);
      if (set !== null) {
        source += set.source;
        i = set.end;
        continue;
      }
    }
    if (c === "\\" && i + 1 < pattern.length) {
      source += escapeRegExp(pattern.charAt(i + 1));
      i += 2;
      continue;
    }
    source += escapeRegExp(c);
    i++;
  }
  return new RegExp(`^${source}$`, ignoreCase ? "iu" : "u");
}

function skipStars(pattern: string, from: number): number {
  let end = from;
  while (pattern.charAt(end) === "*") end++;
  return end;
}

/** `[...]` from `start`, as a RegExp class that never matches `/`; `null` when it is not closed. */
function characterSet(pattern: string, start: number): { source: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (pattern.charAt(i) === "!" || pattern.charAt(i) === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "]" && !first) {
      return { source: negate ? `(?!/)[^${body}]` : `(?!/)[${body}]`, end: i + 1 };
    }
    first = false;
    if (c === "\\" && i + 1 < pattern.length) {
      body += escapeClass(pattern.charAt(i + 1));
      i += 2;
      continue;
    }
    if (pattern.charAt(i + 1) === "-" && i + 2 < pattern.length && pattern.charAt(i + 2) !== "]") {
      body += `${escapeClass(c)}-${escapeClass(pattern.charAt(i + 2))}`;
      i += 3;
      continue;
    }
    body += escapeClass(c);
    i++;
  }
  return null;
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function escapeClass(c: string): string {
  return /[\\\]^-]/.test(c) ? `\\${c}` : c;
}
