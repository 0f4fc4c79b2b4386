import { findNodeAtLocation, type ParseErrorCode, parseTree, printParseErrorCode, visit } from "jsonc-parser";
import type * as v from "valibot";
import { err, ok, type Result } from "../core/result.ts";
import { decodeUtf8 } from "../fs/cached-file.ts";
import { issueMessage } from "./schemas.ts";

/**
 * Where twig's JSON files (state, registry) broke, said without quoting them: such a file may be a
 * link to a secret, or written by whoever made the clone, and an error message reaches the model
 * and the user's terminal. A syntax error is named by line and column; a value of the wrong shape
 * by the line and column of that value and its path, with branch names left out. The engine's own
 * messages are not used: they quote the token they stopped at. jsonc-parser (VS Code's parser,
 * strict with comments and trailing commas refused) runs only once `JSON.parse` has failed, to
 * find the offsets `JSON.parse` does not give.
 */

/** A JSON file's text and value, or where and why it is not JSON. */
export function parseJsonFile(bytes: Uint8Array): Result<{ text: string; value: unknown }, string> {
  const text = decodeUtf8(bytes);
  if (text === null) return err("not valid UTF-8");
  try {
    return ok({ text, value: JSON.parse(text) });
  } catch {
    const first = firstSyntaxError(text);
    if (first === null) return err("invalid JSON");
    return err(`invalid JSON at ${lineColumn(text, first.offset)}: ${words(printParseErrorCode(first.error))}`);
  }
}

/** Where the scanner first stops; it stops there, rather than collecting every error in 50 MB of garbage. */
function firstSyntaxError(text: string): { error: ParseErrorCode; offset: number } | null {
  let first: { error: ParseErrorCode; offset: number } | null = null;
  try {
    visit(
      text,
      {
        onError(error, offset) {
          first = { error, offset };
          throw STOP;
        },
      },
      { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
    );
  } catch {
    // STOP, or a nesting too deep for the parser's recursion: whatever was found stands.
  }
  return first;
}

const STOP = new Error("first syntax error found");

/** Where a value sits: its path in the file, and that path as shown (`branches.*`: a branch name left out). */
export type JsonPlace = { path: readonly (string | number)[]; shown: string };

export const TOP: JsonPlace = { path: [], shown: "" };

/**
 * `line 4, column 20 (branches.*.github_pr): Invalid type: expected number`. The path below
 * `place` comes from the schema (field names and list indexes), never from the file.
 */
export function describeIssueIn(text: string, issues: readonly v.BaseIssue<unknown>[], place = TOP): string {
  const first = issues[0];
  if (first === undefined) return "invalid";
  const below = (first.path ?? []).map((item) => item.key as string | number);
  const shown = below.reduce<string>(
    (shape, key) => (typeof key === "number" ? `${shape}[${key}]` : `${shape}.${key}`),
    place.shown,
  );
  const offset = valueOffset(text, [...place.path, ...below]);
  const where = offset === null ? "" : `at ${lineColumn(text, offset)}`;
  const path = shown.replace(/^\./, "");
  const label = [where, path === "" ? "" : `(${path})`].filter(Boolean).join(" ");
  return `${label === "" ? "" : `${label}: `}${issueMessage(first)}`;
}

/** Where the value at `path` starts; `null` if it cannot be found (or the file nests too deep to parse again). */
function valueOffset(text: string, path: (string | number)[]): number | null {
  try {
    const root = parseTree(text);
    return root === undefined ? null : (findNodeAtLocation(root, path)?.offset ?? null);
  } catch {
    return null;
  }
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

/** `CommaExpected` as `comma expected`. */
function words(code: string): string {
  return code.replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase();
}
