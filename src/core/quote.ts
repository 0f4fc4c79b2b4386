/** How much of a received value an error message repeats: enough to recognise it, never a payload. */
const QUOTED_CHARACTERS = 40;

/**
 * Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides:
 * anything that could restyle, reorder or split the text a model or terminal shows.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A short, printable form of a value someone sent, for an error message: strings are cut to a few
 * dozen characters and quoted with their unprintable characters replaced by `?`; other values are
 * named by their type (numbers and booleans shown as they are).
 */
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
