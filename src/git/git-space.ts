/** git's own `isspace` (git-compat-util.h): space, tab, LF, CR — not vertical tab or form feed. */
export function isGitSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** `strbuf_rtrim`: drops trailing git whitespace. */
export function rtrimGitSpace(text: string): string {
  let end = text.length;
  while (end > 0 && isGitSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}
