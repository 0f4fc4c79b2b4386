import { isGitSpace } from "./git-space.ts";

/** Hex lengths of SHA-1 and SHA-256 object names; a repository uses one or the other. */
const OID_LENGTHS = new Set([40, 64]);

/**
 * The object name at the start of `text`, lower-cased, when it is followed by nothing or by
 * whitespace (as git requires of loose refs and packed-refs lines); otherwise `null`.
 */
export function leadingOid(text: string): string | null {
  let end = 0;
  while (end < text.length && isHexDigit(text.charCodeAt(end))) end++;
  if (!OID_LENGTHS.has(end)) return null;
  if (end < text.length && !isGitSpace(text.charCodeAt(end))) return null;
  return text.slice(0, end).toLowerCase();
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}
