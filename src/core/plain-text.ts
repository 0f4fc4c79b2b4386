/**
 * Plain text leaving the server carries what others wrote. Terminals act on control sequences
 * (OSC 52 writes the clipboard) and bidi or invisible characters make text read differently, so
 * none pass: C0 but `\t`/`\n`, DEL, C1, invisible format and bidi characters, tag characters.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
const UNSAFE_TEST = new RegExp(UNSAFE.source);
/** Line and paragraph separators break lines in some viewers: they become the newline they mean. */
const SEPARATORS = /[\u2028\u2029]/g;

/** `text` without control, bidi or invisible format characters; `\n` and `\t` stay. */
export function plainText(text: string): string {
  if (!UNSAFE_TEST.test(text) && !text.includes("\u2028") && !text.includes("\u2029")) return text;
  return text.replace(SEPARATORS, "\n").replace(UNSAFE, "");
}

/** `text` cut to `max` characters, the last an ellipsis when it was longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One line of plain text: no newline or tab survives, and a long value is clipped. */
export function inline(text: string, max = 300): string {
  return clip(plainText(text).replace(/[\n\t]/g, " "), max);
}

/** A value someone else wrote, JSON-quoted: it cannot end its quote, start a line or close a fence. */
export function quoted(text: string, max = 300): string {
  return JSON.stringify(clip(plainText(text), max));
}

/** JSON text with C1, bidi and invisible characters as `\uXXXX` too (`JSON.stringify` escapes C0 only). */
export function escapeInvisibles(json: string): string {
  if (!UNSAFE_TEST.test(json) && !json.includes("\u2028") && !json.includes("\u2029")) return json;
  return json.replace(
    /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g,
    // Each UTF-16 unit on its own, as JSON writes a surrogate pair (the tag characters).
    (ch) => ch.replace(/[\s\S]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
}

/** How much of a received value an error message repeats: enough to recognise it, never a payload. */
const QUOTED_CHARACTERS = 40;

/** For error messages: C0, DEL, C1, line separators and bidi overrides, each shown as `?`. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A value someone sent, for an error message: a string cut short and quoted, anything else by its type. */
export function quoteReceived(value: unknown): string {
  if (typeof value === "string") return `'${printable(value)}'`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

/** `text` cut to `max` characters (whole code points), unprintable characters as `?`. */
export function printable(text: string, max = QUOTED_CHARACTERS): string {
  const head = Array.from(text.slice(0, max * 2))
    .slice(0, max)
    .join("");
  const cut = head.length < text.length ? `${head}…` : head;
  return cut.replace(UNPRINTABLE, "?");
}

/**
 * `text` without the characters of `chars` at its end (and its start, with `both`). By hand:
 * `/\/+$/` retries from every slash of a run that does not end the text, quadratic on a hostile
 * remote URL or host value.
 */
export function trimChars(text: string, chars: string, both = false): string {
  let start = 0;
  let end = text.length;
  while (both && start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}
