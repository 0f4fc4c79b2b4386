import * as v from "valibot";
import { sha256Hex } from "../../core/sha256.ts";
import { unpublished } from "./params.ts";

/**
 * A page cursor (list_branches, get_stack_status): the last name listed, so branches added or deleted
 * between pages shift nothing, and the query, bound to one repository. The digest catches edited
 * cursors; it is no secret, as a cursor only names a position anyone could ask for.
 */
type BranchCursor = { after: string; query: string | null };

const VERSION = 1;
const MAX_CURSOR_CHARS = 4096;

export const CursorSchema = v.pipe(
  v.string(),
  v.maxLength(MAX_CURSOR_CHARS),
  unpublished("maxLength"),
  v.description("A page's next_cursor."),
);

const PayloadSchema = v.tuple([v.literal(VERSION), v.string(), v.string(), v.nullable(v.string())]);

export function encodeCursor(cursor: BranchCursor, repository: string): string {
  const json = JSON.stringify([VERSION, repositoryTag(repository), cursor.after, cursor.query]);
  const payload = Buffer.from(json).toString("base64url");
  return `${payload}.${digest(payload)}`;
}

/** The cursor, or why it cannot be used (for an `invalid_params` message). */
export function decodeCursor(
  text: string,
  repository: string,
): { ok: true; value: BranchCursor } | { ok: false; why: string } {
  const dot = text.indexOf(".");
  if (text.length > MAX_CURSOR_CHARS || dot < 0) return { ok: false, why: "it is not a cursor this server made" };
  const payload = text.slice(0, dot);
  if (text.slice(dot + 1) !== digest(payload)) {
    return { ok: false, why: "it was changed or cut short (its check digest does not match)" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return { ok: false, why: "it is not a cursor this server made" };
  }
  const fields = v.safeParse(PayloadSchema, parsed);
  if (!fields.success) return { ok: false, why: "it comes from another version of twig-mcp" };
  const [, tag, after, query] = fields.output;
  if (tag !== repositoryTag(repository)) return { ok: false, why: "it pages through another repository" };
  return { ok: true, value: { after, query } };
}

function digest(payload: string): string {
  return sha256Hex(`twig-mcp list_branches cursor\u0000${payload}`).slice(0, 16);
}

function repositoryTag(repository: string): string {
  return sha256Hex(repository).slice(0, 8);
}
