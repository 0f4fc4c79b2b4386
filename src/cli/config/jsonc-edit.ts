/**
 * Edits placed by hand, not by jsonc-parser's `modify`: its formatter re-lays the enclosing object,
 * writes `"args"` one item per line and moves end-of-line comments, and users' files must keep
 * every byte but the entry (test/cli/config-merge.test.ts).
 */
import { applyEdits, type Edit } from "jsonc-parser";
import { err, ok, type Result } from "../../core/result.ts";
import { findMember, type JsonNode, type Member, type ObjectNode, parseJsonc } from "./jsonc.ts";

/** How the file is laid out (one level of indentation, line break), so inserted text matches it. */
interface JsonStyle {
  unit: string;
  eol: "\n" | "\r\n";
}

/**
 * Sets the value at `path` (object keys from the top), creating missing objects on the way; only
 * that value's (or the inserted member's) characters change. Fails when the text is not JSON(C)
 * or a key on the path holds something other than an object.
 */
export function setJsonValue(text: string, path: readonly string[], value: unknown): Result<string, string> {
  const bom = text.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
  if (text.slice(bom.length).trim() === "") {
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    return ok(`${bom}${stringify(nest(path, value), "  ", "", eol)}${eol}`);
  }
  const parsed = parseJsonc(text);
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    return err(`it is not valid JSON: ${message} at line ${line}, column ${column}`);
  }
  if (parsed.value.kind !== "object") return err("its top level is not a JSON object");
  const style = detectStyle(text, parsed.value);
  let node: ObjectNode = parsed.value;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    const member = findMember(node, key);
    if (member === undefined)
      return ok(applyEdits(text, insertMember(text, node, key, nest(path.slice(i + 1), value), style)));
    if (i === path.length - 1) return ok(applyEdits(text, [replaceValue(text, node, member, value, style)]));
    if (member.value.kind !== "object") {
      return err(
        `"${path.slice(0, i + 1).join(".")}" holds ${member.value.kind === "array" ? "an array" : "a plain value"}, not an object`,
      );
    }
    node = member.value;
  }
  return err("an empty path names the whole document");
}

function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function detectStyle(text: string, root: ObjectNode): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const queue: JsonNode[] = [root];
  while (queue.length > 0) {
    const node = queue.shift() as JsonNode;
    if (node.kind === "object") {
      const first = node.members[0];
      if (first && onDifferentLines(text, node.start, first.keyStart)) {
        const outer = lineIndent(text, node.start);
        const inner = lineIndent(text, first.keyStart);
        if (inner.startsWith(outer) && inner.length > outer.length) return { unit: inner.slice(outer.length), eol };
      }
      queue.push(...node.members.map((m) => m.value));
    } else if (node.kind === "array") {
      queue.push(...node.items);
    }
  }
  return { unit: "  ", eol };
}

function onDifferentLines(text: string, from: number, to: number): boolean {
  return text.slice(from, to).includes("\n");
}

/** The spaces and tabs that start the line `pos` is on. */
function lineIndent(text: string, pos: number): string {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, pos))?.[0] ?? "";
}

/** Members written on the same line as their `{` (a one-line or minified file) are edited in place, compactly. */
function isCompact(text: string, node: ObjectNode): boolean {
  const first = node.members[0];
  return first !== undefined && !onDifferentLines(text, node.start, first.keyStart);
}

function compactJson(text: string, node: ObjectNode, value: unknown): string {
  const minified = !/\s/.test(text.slice(node.start, node.end));
  return minified ? JSON.stringify(value) : stringify(value, "", "", " ");
}

function replaceValue(text: string, parent: ObjectNode, member: Member, value: unknown, style: JsonStyle): Edit {
  const rendered = isCompact(text, parent)
    ? compactJson(text, parent, value)
    : stringify(value, style.unit, lineIndent(text, member.keyStart), style.eol);
  return edit(member.value.start, rendered, member.value.end - member.value.start);
}

function insertMember(text: string, node: ObjectNode, key: string, value: unknown, style: JsonStyle): Edit[] {
  const last = node.members.at(-1);
  if (last === undefined) {
    const outer = lineIndent(text, node.start);
    const indent = outer + style.unit;
    const member = `${JSON.stringify(key)}: ${stringify(value, style.unit, indent, style.eol)}`;
    const inside = text.slice(node.start + 1, node.end - 1);
    if (inside.trim() === "")
      return [edit(node.start + 1, `${style.eol}${indent}${member}${style.eol}${outer}`, inside.length)];
    // Only comments inside: they stay, after the new member.
    return [edit(node.start + 1, `${style.eol}${indent}${member}`)];
  }
  const trailing = node.trailingComma !== null;
  const anchor = trailing ? (node.trailingComma as number) + 1 : last.value.end;
  const comma = trailing ? "" : ",";
  if (isCompact(text, node)) {
    const minified = !/\s/.test(text.slice(node.start, node.end));
    const member = `${JSON.stringify(key)}:${minified ? "" : " "}${compactJson(text, node, value)}`;
    return [edit(anchor, `${comma}${minified ? "" : " "}${member}`)];
  }
  const indent = lineIndent(text, last.keyStart);
  const member = `${JSON.stringify(key)}: ${stringify(value, style.unit, indent, style.eol)}${trailing ? "," : ""}`;
  // After a comment that ends the last member's line, so the comment stays with its member.
  const at = endOfLine(text, anchor);
  return [edit(anchor, comma), edit(at, `${style.eol}${indent}${member}`)];
}

function edit(offset: number, content: string, length = 0): Edit {
  return { offset, length, content };
}

/** Where the line containing `pos` breaks (before `\r\n`). */
export function lineEnd(text: string, pos: number): number {
  const eol = text.indexOf("\n", pos);
  if (eol === -1) return text.length;
  return text[eol - 1] === "\r" ? eol - 1 : eol;
}

/**
 * From `pos`, skips blanks and comments on the same line; returns where the line break starts
 * (before `\r\n`), or where something else begins.
 */
function endOfLine(text: string, pos: number): number {
  let at = pos;
  for (;;) {
    while (text[at] === " " || text[at] === "\t") at++;
    if (text.startsWith("//", at)) return lineEnd(text, at);
    if (text.startsWith("/*", at)) {
      const close = text.indexOf("*/", at + 2);
      if (close === -1 || text.slice(at, close).includes("\n")) return at;
      at = close + 2;
      continue;
    }
    return at;
  }
}

/**
 * JSON text at `indent`, one member or item per line, except that short arrays of plain values
 * stay on one line (`"args": ["--repo", "/src/shop"]`) as people write them.
 */
export function stringify(value: unknown, unit: string, indent: string, eol: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inline = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    if (value.every((item) => item === null || typeof item !== "object") && inline.length <= 100) return inline;
    const inner = indent + unit;
    return `[${eol}${value.map((item) => inner + stringify(item, unit, inner, eol)).join(`,${eol}`)}${eol}${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const inner = indent + unit;
    const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${stringify(item, unit, inner, eol)}`);
    return `{${eol}${lines.join(`,${eol}`)}${eol}${indent}}`;
  }
  return JSON.stringify(value);
}
