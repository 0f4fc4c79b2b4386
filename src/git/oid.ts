import { isGitSpace } from "./git-space.ts";

/** Hex lengths of SHA-1 and SHA-256 object names; a repository uses one or the other. */
const OID_LENGTHS = new Set([40, 64]);

/**
 * The object name at the start of `text`, lower-cased, when it is followed by nothing or by
 * whitespace (as git requires of loose refs and packed-refs lines); otherwise `null`.
 */
export function leadingOid(text: string): string | null {
  const hex = /^[0-9a-f]*/i.exec(text)?.[0] ?? "";
  if (!OID_LENGTHS.has(hex.length)) return null;
  if (hex.length < text.length && !isGitSpace(text.charCodeAt(hex.length))) return null;
  return hex.toLowerCase();
}
