/**
 * Atlassian Document Format (Jira Cloud REST v3 rich text) → readable Markdown-ish text:
 * headings `#`, lists `-`/`1.` (nested by indentation), task lists `- [ ]`, fenced code blocks,
 * block quotes, GFM tables, `[text](url)` links, `@mentions`, emoji as characters. The input is
 * untrusted JSON: anything malformed or unknown degrades to the text it contains, never throws.
 */

interface AdfNode {
  type: string;
  content: AdfNode[];
  text: string | undefined;
  attrs: Record<string, unknown>;
  marks: { type: string; attrs: Record<string, unknown> }[];
}

/** Nesting deeper than this is cut off with `…` rather than risking the stack. */
const MAX_DEPTH = 48;

const words = (list: string) => new Set(list.split(" "));

const BLOCK_TYPES = words(
  "doc paragraph heading bulletList orderedList listItem taskList taskItem decisionList decisionItem codeBlock " +
    "blockquote rule panel table tableRow tableHeader tableCell mediaSingle mediaGroup expand nestedExpand " +
    "layoutSection layoutColumn blockCard embedCard extension bodiedExtension multiBodiedExtension extensionFrame",
);
/** Blocks that only hold other blocks. */
const CONTAINERS = words(
  "doc layoutSection layoutColumn bodiedExtension multiBodiedExtension extensionFrame tableRow tableHeader tableCell",
);
const LIST_ITEMS = words("listItem taskItem decisionItem");

/** Renders an ADF document (or any ADF node) as text. Non-ADF input yields `""`. */
export function adfToText(document: unknown): string {
  const node = toNode(document);
  if (node === null) return "";
  const text = BLOCK_TYPES.has(node.type) || node.text === undefined ? renderBlock(node, 0) : renderInline([node], 0);
  return tidy(text);
}

function toNode(value: unknown): AdfNode | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  const content = Array.isArray(raw.content) ? raw.content.map(toNode).filter((n): n is AdfNode => n !== null) : [];
  const marks = Array.isArray(raw.marks)
    ? raw.marks
        .filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null && typeof m.type === "string")
        .map((m) => ({ type: m.type as string, attrs: record(m.attrs) }))
    : [];
  return {
    type: typeof raw.type === "string" ? raw.type : "",
    content,
    text: typeof raw.text === "string" ? raw.text : undefined,
    attrs: record(raw.attrs),
    marks,
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function attrString(node: AdfNode, name: string): string | undefined {
  const value = node.attrs[name];
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function isBlock(node: AdfNode): boolean {
  return BLOCK_TYPES.has(node.type);
}

/** Children of a block container: blocks rendered one by one, runs of inline nodes as paragraphs. */
function renderChildren(nodes: readonly AdfNode[], depth: number, separator = "\n\n"): string {
  const parts: string[] = [];
  let inline: AdfNode[] = [];
  const flush = () => {
    if (inline.length > 0) parts.push(renderInline(inline, depth));
    inline = [];
  };
  for (const node of nodes) {
    if (isBlock(node) || (!isInlineLike(node) && node.content.some(isBlock))) {
      flush();
      parts.push(renderBlock(node, depth));
    } else {
      inline.push(node);
    }
  }
  flush();
  return parts.filter((part) => part.trim() !== "").join(separator);
}

function isInlineLike(node: AdfNode): boolean {
  return node.text !== undefined || node.content.length === 0;
}

function renderBlock(node: AdfNode, depth: number): string {
  if (depth > MAX_DEPTH) return "…";
  const next = depth + 1;
  if (CONTAINERS.has(node.type)) return renderChildren(node.content, next);
  if (LIST_ITEMS.has(node.type)) return renderListItemBody(node, next);
  switch (node.type) {
    case "paragraph":
      return renderInline(node.content, next).trim();
    case "heading": {
      const level = Math.min(6, Math.max(1, Math.trunc(Number(node.attrs.level) || 1)));
      return `${"#".repeat(level)} ${renderInline(node.content, next).replace(/\n+/g, " ")}`;
    }
    case "bulletList":
      return renderList(node, next, () => "-");
    case "orderedList": {
      const start = Math.max(0, Math.trunc(Number(node.attrs.order ?? 1) || 1));
      return renderList(node, next, (index) => `${start + index}.`);
    }
    case "taskList":
      return renderList(node, next, (_index, item) => (attrString(item, "state") === "DONE" ? "- [x]" : "- [ ]"));
    case "decisionList":
      return renderList(node, next, () => "- Decision:");
    case "codeBlock":
      return fencedCode(
        node.content
          .map((child) => child.text ?? "")
          .join("")
          .replace(/\n$/, ""),
        attrString(node, "language") ?? "",
      );
    case "blockquote":
      return quote(renderChildren(node.content, next));
    case "rule":
      return "---";
    case "panel": {
      const kind = attrString(node, "panelType") ?? "info";
      return quote(`**${kind.charAt(0).toUpperCase() + kind.slice(1)}:**\n${renderChildren(node.content, next)}`);
    }
    case "table":
      return renderTable(node, next);
    case "mediaSingle":
    case "mediaGroup":
      return node.content
        .map((child) => renderInline([child], next))
        .filter((t) => t !== "")
        .join("\n");
    case "expand":
    case "nestedExpand": {
      const title = attrString(node, "title");
      const body = renderChildren(node.content, next);
      return title ? `**${title}**\n\n${body}` : body;
    }
    case "blockCard":
    case "embedCard":
    case "extension":
      return renderInlineNode(node, next);
    default:
      return renderUnknown(node, next);
  }
}

/** An unknown node: its children (as blocks or inline), else its text, else nothing. */
function renderUnknown(node: AdfNode, depth: number): string {
  if (node.content.length > 0) {
    return node.content.some(isBlock) ? renderChildren(node.content, depth) : renderInline(node.content, depth);
  }
  return node.text ?? attrString(node, "text") ?? "";
}

function renderList(list: AdfNode, depth: number, marker: (index: number, item: AdfNode) => string): string {
  return list.content
    .map((item, index) => {
      const prefix = `${marker(index, item)} `;
      const body = LIST_ITEMS.has(item.type)
        ? renderListItemBody(item, depth)
        : isBlock(item)
          ? renderBlock(item, depth)
          : renderInline([item], depth);
      // A list directly inside a list (ADF allows it for task lists) is nested, not a new item.
      if (item.type === list.type || (isBlock(item) && item.type.endsWith("List"))) return indent(body, "  ", "  ");
      return indent(body, prefix, " ".repeat(prefix.length));
    })
    .join("\n");
}

/** A list item's blocks stacked tightly, so nested lists sit right under their parent line. */
function renderListItemBody(item: AdfNode, depth: number): string {
  if (item.content.every((child) => !isBlock(child))) return renderInline(item.content, depth);
  return renderChildren(item.content, depth, "\n");
}

function renderTable(table: AdfNode, depth: number): string {
  const rows = table.content
    .filter((row) => row.type === "tableRow" || row.content.length > 0)
    .map((row) =>
      row.content.flatMap((cell) => {
        const text = renderChildren(cell.content, depth, " ")
          .replace(/\s*\n\s*/g, " ")
          .replace(/\|/g, "\\|")
          .trim();
        const span = Math.min(64, Math.max(1, Math.trunc(Number(cell.attrs.colspan) || 1)));
        return [text, ...Array<string>(span - 1).fill("")];
      }),
    );
  if (rows.length === 0) return "";
  const width = Math.max(1, ...rows.map((row) => row.length));
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`.replace(/ {2,}\|/g, " |");
  const [header, ...body] = rows as [string[], ...string[][]];
  return [line(header), `|${" --- |".repeat(width)}`, ...body.map(line)].join("\n");
}

function renderInline(nodes: readonly AdfNode[], depth: number): string {
  if (depth > MAX_DEPTH) return "…";
  return nodes.map((node) => renderInlineNode(node, depth + 1)).join("");
}

function renderInlineNode(node: AdfNode, depth: number): string {
  switch (node.type) {
    case "text":
      return applyMarks(node.text ?? "", node.marks);
    case "hardBreak":
      return "\n";
    case "mention": {
      const name = attrString(node, "text") ?? "";
      if (name === "") return "@unknown";
      return name.startsWith("@") ? name : `@${name}`;
    }
    case "emoji":
      return attrString(node, "text") || attrString(node, "shortName") || "";
    case "inlineCard":
    case "blockCard":
    case "embedCard": {
      const data = record(node.attrs.data);
      const title = typeof data.name === "string" ? data.name : typeof data.url === "string" ? data.url : undefined;
      return attrString(node, "url") ?? title ?? "";
    }
    case "date": {
      const timestamp = Number(attrString(node, "timestamp"));
      if (!Number.isFinite(timestamp)) return "";
      const date = new Date(timestamp);
      return Number.isNaN(date.getTime()) ? "" : date.toISOString().slice(0, 10);
    }
    case "status": {
      const text = attrString(node, "text");
      return text ? `[${text}]` : "";
    }
    case "media":
    case "mediaInline": {
      const name = attrString(node, "alt") || attrString(node, "name") || attrString(node, "fileName");
      const url = attrString(node, "url");
      if (url && attrString(node, "type") === "external") return `![${name ?? "image"}](${url})`;
      return name ? `[attachment: ${name}]` : "[attachment]";
    }
    case "caption":
      return renderInline(node.content, depth);
    case "placeholder":
      return "";
    case "inlineExtension":
    case "extension":
      return `[${attrString(node, "extensionKey") ?? "extension"}]`;
    default:
      if (isBlock(node)) return renderBlock(node, depth);
      return renderUnknown(node, depth);
  }
}

/** Markdown emphasis around `text`; surrounding spaces stay outside the markers. */
function applyMarks(text: string, marks: AdfNode["marks"]): string {
  if (text === "" || marks.length === 0) return text;
  const types = new Set(marks.map((m) => m.type));
  const [, lead = "", core = "", trail = ""] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) ?? [];
  if (core === "") return text;
  let out = core;
  if (types.has("code")) out = inlineCode(core);
  else {
    if (types.has("strike")) out = `~~${out}~~`;
    if (types.has("em")) out = `*${out}*`;
    if (types.has("strong")) out = `**${out}**`;
  }
  const link = marks.find((m) => m.type === "link");
  const href = link && typeof link.attrs.href === "string" ? link.attrs.href : undefined;
  if (href !== undefined && href !== "")
    out = core === href ? href : `[${out}](${href.replace(/[()\s]/g, encodeURIComponent)})`;
  return `${lead}${out}${trail}`;
}

function indent(text: string, first: string, rest: string): string {
  return text
    .split("\n")
    .map((line, index) => (index === 0 ? first + line : line === "" ? "" : rest + line))
    .join("\n");
}

/** Backticks one longer than the longest run in `text`, and at least `min` long. */
function ticks(text: string, min: number): string {
  return "`".repeat(Math.max(min - 1, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
}

export function inlineCode(code: string): string {
  const pad = code.startsWith("`") || code.endsWith("`") ? " " : "";
  return `${ticks(code, 1)}${pad}${code}${pad}${ticks(code, 1)}`;
}

/** A fenced block whose fence no line of `code` can close; the language is reduced to a safe word. */
export function fencedCode(code: string, language: string): string {
  const fence = ticks(code, 3);
  return `${fence}${language.replace(/[^\w+#.-]/g, "")}\n${code}\n${fence}`;
}

export function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** Trailing spaces off every line, at most one blank line in a row, no blank lines at the ends. */
export function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "");
}
