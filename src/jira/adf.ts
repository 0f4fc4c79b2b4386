import { clip, trimChars } from "../core/plain-text.ts";

/** Atlassian Document Format → Markdown-ish text. Untrusted: anything malformed degrades to its text, never throws. */

interface AdfNode {
  type: string;
  content: AdfNode[];
  text: string | undefined;
  attrs: Record<string, unknown>;
  marks: Record<string, unknown>[];
}

/** Nesting deeper than this is cut off with `…` rather than risking the stack. */
const MAX_DEPTH = 48;

/** A grid pads every row to the widest: unbounded, a 30 KB table rendered to 11 MB. */
export const MAX_TABLE_COLUMNS = 20;
export const MAX_CELL_CHARS = 500;

/** A rendering and whether it is whole (`false`: it stopped at its budget, and more would follow). */
export type Rendered = { text: string; complete: boolean };

/** Characters the (synchronous) rendering may still produce at any one level: work stops where the text is cut. */
const budget = { room: Number.POSITIVE_INFINITY, hit: false };

/** At most about `maxChars` characters of an ADF document (the text may run somewhat past; cut it there). */
export function renderAdf(document: unknown, maxChars: number): Rendered {
  const node = toNode(document);
  if (node === null) return { text: "", complete: true };
  return withinBudget(maxChars, () =>
    tidy(isBlock(node) || node.text === undefined ? renderBlock(node, 0) : renderInline([node], 0)),
  );
}

export function withinBudget(maxChars: number, render: () => string): Rendered {
  budget.room = maxChars + 1;
  budget.hit = false;
  return { text: render(), complete: !budget.hit };
}

export function pastBudget(length: number): boolean {
  if (length <= budget.room) return false;
  budget.hit = true;
  return true;
}

export const withinRoom = (text: string) => (pastBudget(text.length) ? text.slice(0, budget.room) : text);

/** `render(item)` for each item, joined by `separator`, skipping what `keep` refuses, until past the budget. */
function joinWithin<T>(
  items: readonly T[],
  render: (item: T, index: number) => string,
  separator: string,
  keep: (part: string) => boolean = () => true,
): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; index < items.length; index++) {
    if (pastBudget(length)) break;
    const part = withinRoom(render(items[index] as T, index));
    if (!keep(part)) continue;
    parts.push(part);
    length += part.length + separator.length;
  }
  return parts.join(separator);
}

/** Children far below what rendering reaches are dropped: reading them could overflow the stack. */
function toNode(value: unknown, depth = 0): AdfNode | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  const keep = Array.isArray(raw.content) && depth < 2 * MAX_DEPTH;
  return {
    type: typeof raw.type === "string" ? raw.type : "",
    content: keep ? (raw.content as unknown[]).flatMap((child) => toNode(child, depth + 1) ?? []) : [],
    text: typeof raw.text === "string" ? raw.text : undefined,
    attrs: record(raw.attrs),
    marks: (Array.isArray(raw.marks) ? raw.marks : []).map(record),
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

const isBlock = (node: AdfNode) => BLOCKS.has(node.type);

/** Children of a block container: blocks rendered one by one, runs of inline nodes as paragraphs. */
function renderChildren(nodes: readonly AdfNode[], depth: number, separator = "\n\n"): string {
  const groups: (AdfNode | AdfNode[])[] = [];
  for (const node of nodes) {
    const last = groups.at(-1);
    // A textless node of unknown type that holds blocks is a block too.
    if (isBlock(node) || (node.text === undefined && node.content.some(isBlock))) groups.push(node);
    else if (Array.isArray(last)) last.push(node);
    else groups.push([node]);
  }
  const render = (group: AdfNode | AdfNode[]) =>
    Array.isArray(group) ? renderInline(group, depth) : renderBlock(group, depth);
  return joinWithin(groups, render, separator, (part) => part.trim() !== "");
}

type Render = (node: AdfNode, depth: number) => string;

/** Node types (space-separated keys) → how each renders, given the depth of its children. */
function byType(renders: Record<string, Render>): Map<string, Render> {
  return new Map(Object.entries(renders).flatMap(([types, render]) => types.split(" ").map((type) => [type, render])));
}

const children: Render = (node, depth) => renderChildren(node.content, depth);
/** A list item's blocks stacked tightly, so nested lists sit right under their parent line. */
const listItem: Render = (item, depth) =>
  item.content.every((child) => !isBlock(child))
    ? renderInline(item.content, depth)
    : renderChildren(item.content, depth, "\n");
const card: Render = (node) => {
  const { name, url } = record(node.attrs.data);
  return [attrString(node, "url"), name, url].find((text): text is string => typeof text === "string") ?? "";
};
const extension: Render = (node) => `[${attrString(node, "extensionKey") ?? "extension"}]`;

const BLOCKS = byType({
  "doc layoutSection layoutColumn bodiedExtension multiBodiedExtension extensionFrame tableRow tableHeader tableCell":
    children,
  "listItem taskItem decisionItem": listItem,
  "mediaSingle mediaGroup": (node, depth) =>
    joinWithin(node.content, (child) => renderInline([child], depth), "\n", Boolean),
  "expand nestedExpand": (node, depth) => {
    const title = attrString(node, "title");
    const body = renderChildren(node.content, depth);
    return title ? `**${title}**\n\n${body}` : body;
  },
  "blockCard embedCard": card,
  paragraph: (node, depth) => renderInline(node.content, depth).trim(),
  heading: (node, depth) => {
    const level = Math.min(6, Math.max(1, Math.trunc(Number(node.attrs.level) || 1)));
    return `${"#".repeat(level)} ${renderInline(node.content, depth).replace(/\n+/g, " ")}`;
  },
  bulletList: (node, depth) => renderList(node, depth, () => "-"),
  orderedList: (node, depth) => {
    const start = Math.max(0, Math.trunc(Number(node.attrs.order ?? 1) || 1));
    return renderList(node, depth, (index) => `${start + index}.`);
  },
  taskList: (node, depth) =>
    renderList(node, depth, (_index, item) => (attrString(item, "state") === "DONE" ? "- [x]" : "- [ ]")),
  decisionList: (node, depth) => renderList(node, depth, () => "- Decision:"),
  codeBlock: (node) => {
    const code = joinWithin(node.content, (child) => child.text ?? "", "");
    return fencedCode(code.replace(/\n$/, ""), attrString(node, "language") ?? "");
  },
  blockquote: (node, depth) => quote(renderChildren(node.content, depth)),
  rule: () => "---",
  panel: (node, depth) => {
    const kind = attrString(node, "panelType") ?? "info";
    return quote(`**${kind.charAt(0).toUpperCase() + kind.slice(1)}:**\n${renderChildren(node.content, depth)}`);
  },
  table: renderTable,
  extension,
});

const INLINES = byType({
  "media mediaInline": (node) => {
    const name = attrString(node, "alt") || attrString(node, "name") || attrString(node, "fileName");
    const url = attrString(node, "url");
    if (url && attrString(node, "type") === "external") return `![${name ?? "image"}](${url})`;
    return name ? `[attachment: ${name}]` : "[attachment]";
  },
  text: (node) => applyMarks(withinRoom(node.text ?? ""), node.marks),
  hardBreak: () => "\n",
  mention: (node) => (attrString(node, "text") || "@unknown").replace(/^(?!@)/, "@"),
  emoji: (node) => attrString(node, "text") || attrString(node, "shortName") || "",
  inlineCard: card,
  date: (node) => {
    const date = new Date(Number(attrString(node, "timestamp")));
    return Number.isNaN(date.getTime()) ? "" : date.toISOString().slice(0, 10);
  },
  status: (node) => (attrString(node, "text") ? `[${attrString(node, "text")}]` : ""),
  caption: (node, depth) => renderInline(node.content, depth),
  placeholder: () => "",
  inlineExtension: extension,
});

function renderBlock(node: AdfNode, depth: number): string {
  if (depth > MAX_DEPTH) return "…";
  return (BLOCKS.get(node.type) ?? renderUnknown)(node, depth + 1);
}

function renderUnknown(node: AdfNode, depth: number): string {
  if (node.content.length > 0) {
    return node.content.some(isBlock) ? renderChildren(node.content, depth) : renderInline(node.content, depth);
  }
  return node.text ?? attrString(node, "text") ?? "";
}

function renderList(list: AdfNode, depth: number, marker: (index: number, item: AdfNode) => string): string {
  const renderItem = (item: AdfNode, index: number) => {
    const prefix = `${marker(index, item)} `;
    // An item's body is its list's level, not one more: a nested list costs one level of the cap.
    const block = BLOCKS.get(item.type);
    const body =
      block === listItem ? listItem(item, depth) : block ? renderBlock(item, depth) : renderInline([item], depth);
    // A list directly inside a list (ADF allows it for task lists) is nested, not a new item.
    if (item.type === list.type || (isBlock(item) && item.type.endsWith("List"))) return indent(body, "  ", "  ");
    return indent(body, prefix, " ".repeat(prefix.length));
  };
  return joinWithin(list.content, renderItem, "\n");
}

function renderTable(table: AdfNode, depth: number): string {
  const rows: string[][] = [];
  let length = 0;
  for (const row of table.content) {
    if (pastBudget(length)) break;
    if (row.type !== "tableRow" && row.content.length === 0) continue;
    const cells: string[] = [];
    for (const cell of row.content) {
      if (cells.length >= MAX_TABLE_COLUMNS) break;
      const text = renderChildren(cell.content, depth, " ").replace(/\s*\n\s*/g, " ");
      const span = Math.min(MAX_TABLE_COLUMNS, Math.max(1, Math.trunc(Number(cell.attrs.colspan) || 1)));
      cells.push(clip(text.replace(/\|/g, "\\|").trim(), MAX_CELL_CHARS), ...Array<string>(span - 1).fill(""));
    }
    cells.length = Math.min(cells.length, MAX_TABLE_COLUMNS);
    rows.push(cells);
    length += cells.reduce((sum, cell) => sum + cell.length + 3, 0);
  }
  if (rows.length === 0) return "";
  const width = Math.max(1, ...rows.map((row) => row.length));
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`.replace(/ {2,}\|/g, " |");
  const [header, ...body] = rows as [string[], ...string[][]];
  return joinWithin([line(header), `|${" --- |".repeat(width)}`, ...body.map(line)], (text) => text, "\n");
}

function renderInline(nodes: readonly AdfNode[], depth: number): string {
  if (depth > MAX_DEPTH) return "…";
  const render = (node: AdfNode) => INLINES.get(node.type) ?? (isBlock(node) ? renderBlock : renderUnknown);
  return joinWithin(nodes, (node) => render(node)(node, depth + 1), "");
}

/** Markdown emphasis around `text`; surrounding spaces stay outside the markers. */
function applyMarks(text: string, marks: AdfNode["marks"]): string {
  if (text === "" || marks.length === 0) return text;
  const types = new Set(marks.map((m) => m.type));
  // Trimmed, not matched: a lazy pattern between two `\s*` backtracks quadratically on long runs of spaces.
  const core = text.trim();
  if (core === "") return text;
  const lead = text.slice(0, text.length - text.trimStart().length);
  const trail = text.slice(lead.length + core.length);
  let out = core;
  if (types.has("code")) out = inlineCode(core);
  else {
    if (types.has("strike")) out = `~~${out}~~`;
    if (types.has("em")) out = `*${out}*`;
    if (types.has("strong")) out = `**${out}**`;
  }
  const href = record(marks.find((m) => m.type === "link")?.attrs).href;
  if (typeof href === "string" && href !== "")
    out = core === href ? href : `[${out}](${href.replace(/[()\s]/g, encodeURIComponent)})`;
  return `${lead}${out}${trail}`;
}

function indent(text: string, first: string, rest: string): string {
  return first + text.replace(/\n(?=[^\n])/g, () => `\n${rest}`);
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
  // Trailing blanks are trimmed per line by hand: a `[ \t]+(?=\n|$)` regex retries from every blank
  // of a run that does not end a line, quadratic in a description padded with spaces.
  return text
    .split("\n")
    .map((line) => trimChars(line, " \t"))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "");
}
