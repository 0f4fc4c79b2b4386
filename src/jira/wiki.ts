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

const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** Output later passes must not touch (code, links, URLs), as `\uE000n\uE001`; emptied after each (synchronous) rendering. */
const shelf: string[] = [];
const put = (text: string) => `\uE000${shelf.push(text) - 1}\uE001`;

function restore(text: string): string {
  let out = text;
  for (let round = 0; round < 4 && out.includes("\uE000"); round++) {
    out = out.replace(PLACEHOLDER, (_, index: string) => shelf[Number(index)] ?? "");
  }
  return out;
}

/** At most about `maxChars` characters of rendered wiki markup, as `renderAdf` gives them. */
export function renderWiki(source: string, maxChars: number): Rendered {
  const text = source.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
  try {
    return withinBudget(maxChars, () => render(shelveBlocks(text)));
  } finally {
    shelf.length = 0;
  }
}

/** Blocks and inline markup, once code blocks are shelved: the whole text, or a quote's body. */
function render(text: string): string {
  return withinRoom(restore(tidy(convertLines(stripLayoutMacros(text)))));
}

/** `{code}` and `{noformat}` blocks fenced, then `{quote}`s quoted (one in code stays code); an unclosed one runs to the end. */
// Jira authors are untrusted: no pattern here scans past the next opener (macro parameters hold no
// `{`, a `{{…}}` span no `{{`), so a run of unclosed openers costs linear time, not quadratic.
function shelveBlocks(text: string): string {
  return text
    .replace(
      /(?<!\{)\{(code|noformat)(?::([^{}\n]*))?\}(?!\})([\s\S]*?)(?:\{\1\}|$(?![\s\S]))/g,
      (_match, kind: string, params: string | undefined, body: string) => {
        const language = kind === "code" ? codeLanguage(params) : "";
        const code = body.replace(/^[ \t]*\n/, "").replace(/\n[ \t]*$/, "");
        return `\n${put(fencedCode(code, language))}\n`;
      },
    )
    .replace(
      /(?<!\{)\{quote\}(?!\})([\s\S]*?)(?:\{quote\}|$(?![\s\S]))/g,
      (_match, body: string) => `\n${put(quote(render(body)))}\n`,
    );
}

function codeLanguage(params: string | undefined): string {
  for (const part of params?.split("|") ?? []) {
    const [key, value] = part.includes("=") ? part.split("=", 2) : [undefined, part];
    if ((key === undefined || key.trim().toLowerCase() === "language") && value) return value.trim();
  }
  return "";
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

function convertLines(text: string): string {
  const out: string[] = [];
  /** Each open list level's marker: `-`, or the last number given, as `3.`. */
  let levels: string[] = [];
  let tableOpen = false;
  let length = 0;
  for (const rawLine of text.split("\n")) {
    // Shelved pieces are counted as their placeholders; `render` cuts what they restore to.
    length += (out.at(-1)?.length ?? 0) + 1;
    if (pastBudget(length)) break;
    const line = rawLine.trimEnd();

    const list = /^\s*([*#]+|-)\s+(.*)$/.exec(line);
    if (list) {
      tableOpen = false;
      const markers = list[1] as string;
      const depth = markers === "-" ? 1 : markers.length;
      levels = Array.from({ length: depth }, (_, i) => levels[i] ?? "-");
      // Numbering restarts when the kind of list changes at this level.
      const previous = Number.parseInt(levels[depth - 1] as string, 10) || 0;
      levels[depth - 1] = markers.endsWith("#") ? `${previous + 1}.` : "-";
      const indent = levels.slice(0, depth - 1).map((marker) => " ".repeat(marker.length + 1));
      out.push(`${indent.join("")}${levels[depth - 1]} ${inline(list[2] as string)}`);
      continue;
    }
    levels = [];

    if (/^\s*\|/.test(line)) {
      const parts = protectInline(line.trim()).split(/^\s*\|\|/.test(line) ? /\|\|?/ : /\|/);
      if (parts[0]?.trim() === "") parts.shift();
      if (parts.at(-1)?.trim() === "") parts.pop();
      // Each cell is cut without half a shelf placeholder at the cut.
      const cells = parts
        .slice(0, MAX_TABLE_COLUMNS)
        .map((cell) => clip(inline(cell.trim()).replace(/\|/g, "\\|"), MAX_CELL_CHARS).replace(/\uE000\d*…$/, "…"));
      if (!tableOpen && out.length > 0 && out.at(-1) !== "") out.push("");
      out.push(`| ${cells.join(" | ")} |`);
      // Markdown needs a separator under the first row, header or not.
      if (!tableOpen) out.push(`|${" --- |".repeat(Math.max(1, cells.length))}`);
      tableOpen = true;
      continue;
    }
    if (tableOpen && line.trim() !== "") out.push("");
    tableOpen = false;

    const block = /^\s*(?:h([1-6])|bq)\.\s*(.*)$/.exec(line);
    if (block) out.push(`${block[1] ? "#".repeat(Number(block[1])) : ">"} ${inline(block[2] as string)}`);
    else if (/^\s*-{4,}\s*$/.test(line)) out.push("---");
    else out.push(inline(line));
  }
  return out.join("\n");
}

/** Drawn without variation selectors: replies show those as `\u{FE0F}`. */
const EMOTICONS = Object.fromEntries(
  "(/)=✅ (x)=❌ (!)=⚠ (i)=ℹ (?)=❓ (y)=👍 (n)=👎 (on)=💡 (*)=⭐".split(" ").map((pair) => pair.split("=")),
);

/** Links, mentions, monospace, URLs, images and escapes are shelved so emphasis rules cannot reach into them. */
function protectInline(text: string): string {
  return (
    text
      // `\\` is a forced line break; `\x` escapes a special character.
      .replace(/\\\\/g, () => put("\n"))
      .replace(/\\([*_\-+[\]{}!|^~?#])/g, (_m, ch: string) => put(ch))
      .replace(/\{\{((?:(?!\{\{)[\s\S])+?)\}\}/g, (_m, code: string) => put(inlineCode(code)))
      .replace(/\[([^[\]\n]+)\]/g, (match, inner: string) => link(inner) ?? match)
      .replace(/!([^!\s|]+\.[A-Za-z0-9]{2,5}|https?:\/\/[^!\s|]+)(?:\|[^!\n]*)?!/g, (_m, target: string) =>
        put(/^https?:\/\//.test(target) ? `![image](${target})` : `[attachment: ${target}]`),
      )
      .replace(/\b(?:https?|ftp):\/\/[^\s<>"\]|]+/g, (url) => put(url))
      .replace(/\((?:\/|x|!|i|\?|y|n|on|\*)\)/g, (emoticon) => EMOTICONS[emoticon] ?? emoticon)
  );
}

function link(inner: string): string | null {
  if (inner.startsWith("~")) return inner.trim() === "~" ? null : put(`@${inner.slice(1).trim()}`);
  if (inner.startsWith("^")) return put(`[attachment: ${inner.slice(1).trim()}]`);
  // `[label|target|tip]`, or a bare `[target]` (a URL or an `#anchor`; other brackets are text).
  const [label = "", target = ""] = inner.split("|").map((part) => part.trim());
  if (!inner.includes("|")) return /^(?:[a-z][a-z0-9+.-]*:\/\/|mailto:|#)/i.test(label) ? put(label) : null;
  if (target === "") return null;
  if (target.startsWith("~")) return put(`${label} (@${target.slice(1)})`);
  return put(label === "" || label === target ? target : `[${emphasis(label)}](${target})`);
}

/** Wiki emphasis → Markdown: `*b*` → `**b**`, `_i_` → `*i*`, `-s-` → `~~s~~`, `+u+` → `u`. */
function emphasis(text: string): string {
  return text
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g, "$1**$2**")
    .replace(/(^|[^\w_*])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])/g, "$1*$2*")
    .replace(/(^|[\s(])-(?![\s-])([^-\n]+?)(?<![\s-])-(?=$|[\s).,;:!?])/g, "$1~~$2~~")
    .replace(/(^|[^\w+])\+(?!\s)([^+\n]+?)(?<!\s)\+(?![\w+])/g, "$1$2");
}

function inline(text: string): string {
  return emphasis(protectInline(text));
}
