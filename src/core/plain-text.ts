/**
 * Text someone else wrote, made safe to show. Terminals act on control sequences (OSC 52); bidi overrides, tag
 * characters and joiners carry text a model reads and a person never sees. So invisibles show as `\u{E0041}`; controls
 * are removed from text, escaped in values; escape sequences and secrets are taken out. No other module defines a
 * control-character or escape-sequence pattern (test/hardening/control-patterns.test.ts holds it to that).
 */

/** C0 controls and DEL, as a character class's body: what git and the other parsers here call a control. */
export const ASCII_CONTROLS = "\\u0000-\\u001f\\u007f";
/** Every C0 and C1 control and DEL, `\t` and `\n` included. */
export const ALL_CONTROLS = `${ASCII_CONTROLS}\\u0080-\\u009f`;
const INVISIBLE = "\\p{Default_Ignorable_Code_Point}\\p{Cf}";
const CONTROL = "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f";
const INVISIBLES = new RegExp(`[${INVISIBLE}]`, "gu");
const HIDDEN = new RegExp(`[${CONTROL}${INVISIBLE}]`, "u");
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");
const CONTROLS = new RegExp(`[${CONTROL}]`, "g");
const CONTROL_ANY = new RegExp(`[${ALL_CONTROLS}]`, "g");
/** Anything `plainText` changes; `escapeInvisibles` writes each as `\uXXXX` in JSON text. */
const UNSAFE = new RegExp(`[${CONTROL}\\u2028\\u2029${INVISIBLE}]`, "u");
const JSON_UNSAFE = new RegExp(UNSAFE.source, "gu");
/** Line and paragraph separators break lines in some viewers: they become the newline they mean. */
const SEPARATORS = /[\u2028\u2029]/g;

/** CSI (colours, cursor), OSC (titles, hyperlinks, clipboard) and two-character escape sequences. */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g;
const GITHUB_TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b/g;
/** The start of a GitHub token at the end of a cut line: too short to match {@link GITHUB_TOKEN}. */
const TOKEN_START = /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]*$/;
const AUTHORIZATION = /\b(authorization:\s*)(token|bearer|basic)\s+\S+/gi;

const escaped = (ch: string) => `\\u{${(ch.codePointAt(0) as number).toString(16).toUpperCase()}}`;

/** `text` with no control character and every invisible or format character shown as `\u{…}`; `\n` and `\t` stay. */
export function plainText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(SEPARATORS, "\n").replace(CONTROLS, "").replace(INVISIBLES, escaped);
}

/** A reply value: controls (but `\t`/`\n`), invisible and format characters as `\u{…}`. */
export function visible(text: string): string {
  return HIDDEN.test(text) ? text.replace(HIDDEN_ALL, escaped) : text;
}

/** `value` with {@link visible} applied to every string in it, keys included; unchanged parts are not copied. */
export function visibleDeep<T>(value: T): T {
  if (typeof value === "string") return visible(value) as T;
  if (typeof value !== "object" || value === null) return value;
  // Arrays by index: through `Object.entries` a 100,000-line list took 16 times as long.
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = visibleDeep(value[i]);
      if (item === value[i]) continue;
      out ??= value.slice();
      out[i] = item;
    }
    return (out ?? value) as T;
  }
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(source)) {
    const shown = visibleDeep(item);
    const name = visible(key);
    if (shown === item && name === key) continue;
    out ??= { ...source };
    if (name !== key) delete out[key];
    out[name] = shown;
  }
  return (out ?? value) as T;
}

/** At most `max` code points, `…` marking a cut: a surrogate pair is never split. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  // No more than 2 × max units are looked at: a clipped value may be megabytes long.
  const head = Array.from(text.slice(0, 2 * max));
  if (head.length <= max && text.length <= 2 * max) return text;
  return `${head.slice(0, max - 1).join("")}…`;
}

/** Every C0 and C1 control, `\t` and `\n` included, as a space: for text shown on one line. */
export function scrubControl(text: string): string {
  return text.replace(CONTROL_ANY, " ");
}

/** One line of plain text: no newline or tab survives, and a long value is clipped. */
export function inline(text: string, max = 300): string {
  return clip(plainText(text).replace(/[\n\t]/g, " "), max);
}

/** A value someone else wrote, JSON-quoted (invisibles escaped after, so `\u{…}` stays as it is). */
export function quoted(text: string, max = 300): string {
  const plain = text.replace(SEPARATORS, "\n").replace(CONTROLS, "");
  return JSON.stringify(clip(plain, max)).replace(INVISIBLES, escaped);
}

/** JSON text with C1, line separators, invisible and format characters as `\uXXXX` too: the value is unchanged. */
export function escapeInvisibles(json: string): string {
  if (!UNSAFE.test(json)) return json;
  return json.replace(
    JSON_UNSAFE,
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

/** `text` without `chars` at its end (and start, with `both`); by hand, as `/\/+$/` is quadratic. */
export function trimChars(text: string, chars: string, both = false): string {
  let start = 0;
  let end = text.length;
  while (both && start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}

export function stripAnsi(text: string): string {
  return text.includes("\u001b") ? text.replace(ANSI, "") : text;
}

/** Known secrets (4+ characters) and echoed Authorization values redacted: scrub before clipping. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[REDACTED]");
  return out.replace(AUTHORIZATION, "$1$2 [REDACTED]");
}

/** Text shaped like a GitHub token redacted; with `cut`, also a token's start ending the text, as a cut line may. */
export function redactGitHubTokens(text: string, cut = false): string {
  const out = text.replace(GITHUB_TOKEN, "[REDACTED]");
  return cut ? out.replace(TOKEN_START, "[REDACTED]") : out;
}

/** A copy sharing no memory with its source: JavaScriptCore's substrings keep their 64 KB chunk alive. */
export function detach(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
