/** Jira wiki markup (REST v2 descriptions on Server/Data Center) → Markdown-ish text, as `adf.ts` renders ADF. */
import { clip } from "../core/plain-text.ts";
import {
  fencedCode,
  inlineCode,
  MAX_CELL_CHARS,
  MAX_TABLE_COLUMNS,
  pastBudget,
  quote,
  type Rendered,
  tidy,
  withinBudget,
  withinRoom,
} from "./adf.ts";

const OPEN = "\uE000";
const CLOSE = "\uE001";
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** Holds pieces of output that later passes must not touch (code, links, URLs). */
class Shelf {
  readonly #items: string[] = [];
  put = (text: string) => `${OPEN}${this.#items.push(text) - 1}${CLOSE}`;

  restore(text: string): string {
    let out = text;
    for (let round = 0; round < 4 && out.includes(OPEN); round++) {
      out = out.replace(PLACEHOLDER, (_, index: string) => this.#items[Number(index)] ?? "");
    }
    return out;
  }
}

/** At most about `maxChars` characters of rendered wiki markup, as `renderAdf` gives them. */
export function renderWiki(source: string, maxChars: number): Rendered {
  return withinBudget(maxChars, () => {
    const shelf = new Shelf();
    const text = source.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
    return render(convertQuotes(extractPreformatted(text, shelf), shelf), shelf);
  });
}

/** Blocks and inline markup, once code blocks are shelved: the whole text, or a quote's body. */
function render(text: string, shelf: Shelf): string {
  return withinRoom(shelf.restore(tidy(convertLines(stripLayoutMacros(text), shelf))));
}

/** `{code[:params]}…{code}` and `{noformat}…{noformat}` become fenced blocks (an unclosed one runs to the end). */
// Jira authors are untrusted: no pattern here scans past the next opener (macro parameters hold no
// `{`, a `{{…}}` span no `{{`), so a run of unclosed openers costs linear time, not quadratic.
function extractPreformatted(text: string, shelf: Shelf): string {
  return text.replace(
    /(?<!\{)\{(code|noformat)(?::([^{}\n]*))?\}(?!\})([\s\S]*?)(?:\{\1\}|$(?![\s\S]))/g,
    (_match, kind: string, params: string | undefined, body: string) => {
      const language = kind === "code" ? codeLanguage(params) : "";
      const code = body.replace(/^[ \t]*\n/, "").replace(/\n[ \t]*$/, "");
      return `\n${shelf.put(fencedCode(code, language))}\n`;
    },
  );
}

function codeLanguage(params: string | undefined): string {
  for (const part of params?.split("|") ?? []) {
    const [key, value] = part.includes("=") ? part.split("=", 2) : [undefined, part];
    if ((key === undefined || key.trim().toLowerCase() === "language") && value) return value.trim();
  }
  return "";
}

function convertQuotes(text: string, shelf: Shelf): string {
  return text.replace(
    /(?<!\{)\{quote\}(?!\})([\s\S]*?)(?:\{quote\}|$(?![\s\S]))/g,
    (_match, body: string) => `\n${shelf.put(quote(render(body, shelf)))}\n`,
  );
}

/** Layout and colour macros carry no text of their own; a panel or expand title is kept as a bold line. */
function stripLayoutMacros(text: string): string {
  return text
    .replace(/\{(?:panel|expand)(?::([^{}\n]*))?\}/g, (_match, params: string | undefined) => {
      const title = params
        ?.split("|")
        .map((part) => /^\s*title\s*=(.*)$/.exec(part)?.[1]?.trim() ?? (part.includes("=") ? "" : part.trim()))
        .find((value) => value !== "");
      return title ? `\n*${title}*\n` : "\n";
    })
    .replace(/\{(?:color|section|column|div|span|anchor|toc)(?::[^{}\n]*)?\}/g, "");
}

function convertLines(text: string, shelf: Shelf): string {
  const out: string[] = [];
  const levels: Array<{ ordered: boolean; count: number; marker: string }> = [];
  let tableOpen = false;
  let length = 0;
  for (const rawLine of text.split("\n")) {
    // Shelved pieces are counted as their placeholders; `render` cuts what they restore to.
    length += (out.at(-1)?.length ?? 0) + 1;
    if (pastBudget(length)) break;
    const line = rawLine.trimEnd();

    const list = /^\s*([*#]+|-)\s+(.*)$/.exec(line);
    if (list && !/^\s*-{4,}\s*$/.test(line)) {
      tableOpen = false;
      const markers = list[1] as string;
      const depth = markers === "-" ? 1 : markers.length;
      const ordered = markers.endsWith("#");
      levels.length = Math.min(levels.length, depth);
      while (levels.length < depth) levels.push({ ordered: false, count: 0, marker: "-" });
      const level = levels[depth - 1]!;
      // Numbering restarts when the kind of list changes at this level.
      level.count = level.ordered === ordered ? level.count + 1 : 1;
      level.ordered = ordered;
      level.marker = ordered ? `${level.count}.` : "-";
      const indentWidth = levels.slice(0, depth - 1).reduce((sum, l) => sum + l.marker.length + 1, 0);
      out.push(`${" ".repeat(indentWidth)}${level.marker} ${inline(list[2] as string, shelf)}`);
      continue;
    }
    levels.length = 0;

    if (/^\s*\|/.test(line)) {
      const parts = protectInline(line.trim(), shelf).split(/^\s*\|\|/.test(line) ? /\|\|?/ : /\|/);
      if (parts[0]?.trim() === "") parts.shift();
      if (parts.at(-1)?.trim() === "") parts.pop();
      // Each cell is cut without half a shelf placeholder at the cut.
      const cells = parts
        .slice(0, MAX_TABLE_COLUMNS)
        .map((cell) =>
          clip(inline(cell.trim(), shelf).replace(/\|/g, "\\|"), MAX_CELL_CHARS).replace(/\uE000\d*…$/, "…"),
        );
      if (!tableOpen && out.length > 0 && out.at(-1) !== "") out.push("");
      out.push(`| ${cells.join(" | ")} |`);
      // Markdown needs a separator under the first row, header or not.
      if (!tableOpen) out.push(`|${" --- |".repeat(Math.max(1, cells.length))}`);
      tableOpen = true;
      continue;
    }
    if (tableOpen && line.trim() !== "") out.push("");
    tableOpen = false;

    const heading = /^\s*h([1-6])\.\s*(.*)$/.exec(line);
    const blockquote = /^\s*bq\.\s*(.*)$/.exec(line);
    if (heading) out.push(`${"#".repeat(Number(heading[1]))} ${inline(heading[2] as string, shelf)}`);
    else if (blockquote) out.push(`> ${inline(blockquote[1] as string, shelf)}`);
    else if (/^\s*-{4,}\s*$/.test(line)) out.push("---");
    else out.push(inline(line, shelf));
  }
  return out.join("\n");
}

/** Drawn without variation selectors: replies show those as `\u{FE0F}`. */
const EMOTICONS = Object.fromEntries(
  "(/)=✅ (x)=❌ (!)=⚠ (i)=ℹ (?)=❓ (y)=👍 (n)=👎 (on)=💡 (*)=⭐".split(" ").map((pair) => pair.split("=")),
);

/** Links, mentions, monospace, URLs, images and escapes are shelved so emphasis rules cannot reach into them. */
function protectInline(text: string, shelf: Shelf): string {
  return (
    text
      // `\\` is a forced line break; `\x` escapes a special character.
      .replace(/\\\\/g, () => shelf.put("\n"))
      .replace(/\\([*_\-+[\]{}!|^~?#])/g, (_m, ch: string) => shelf.put(ch))
      .replace(/\{\{((?:(?!\{\{)[\s\S])+?)\}\}/g, (_m, code: string) => shelf.put(inlineCode(code)))
      .replace(/\[([^[\]\n]+)\]/g, (match, inner: string) => link(inner, shelf) ?? match)
      .replace(/!([^!\s|]+\.[A-Za-z0-9]{2,5}|https?:\/\/[^!\s|]+)(?:\|[^!\n]*)?!/g, (_m, target: string) =>
        shelf.put(/^https?:\/\//.test(target) ? `![image](${target})` : `[attachment: ${target}]`),
      )
      .replace(/\b(?:https?|ftp):\/\/[^\s<>"\]|]+/g, (url) => shelf.put(url))
      .replace(/\((?:\/|x|!|i|\?|y|n|on|\*)\)/g, (emoticon) => EMOTICONS[emoticon] ?? emoticon)
  );
}

function link(inner: string, shelf: Shelf): string | null {
  if (inner.startsWith("~")) {
    const user = inner.slice(1).trim();
    return user ? shelf.put(`@${user}`) : null;
  }
  if (inner.startsWith("^")) return shelf.put(`[attachment: ${inner.slice(1).trim()}]`);
  // `[label|target|tip]`, or a bare `[target]` (a URL or an `#anchor`; other brackets are text).
  const [label = "", target = ""] = inner.split("|").map((part) => part.trim());
  if (!inner.includes("|")) return /^(?:[a-z][a-z0-9+.-]*:\/\/|mailto:|#)/i.test(label) ? shelf.put(label) : null;
  if (target === "") return null;
  if (target.startsWith("~")) return shelf.put(`${label} (@${target.slice(1)})`);
  return shelf.put(label === "" || label === target ? target : `[${emphasis(label)}](${target})`);
}

/** Wiki emphasis → Markdown: `*b*` → `**b**`, `_i_` → `*i*`, `-s-` → `~~s~~`, `+u+` → `u`. */
function emphasis(text: string): string {
  return text
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g, "$1**$2**")
    .replace(/(^|[^\w_*])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])/g, "$1*$2*")
    .replace(/(^|[\s(])-(?![\s-])([^-\n]+?)(?<![\s-])-(?=$|[\s).,;:!?])/g, "$1~~$2~~")
    .replace(/(^|[^\w+])\+(?!\s)([^+\n]+?)(?<!\s)\+(?![\w+])/g, "$1$2");
}

function inline(text: string, shelf: Shelf): string {
  return emphasis(protectInline(text, shelf));
}
