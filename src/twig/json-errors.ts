import { dirname } from "node:path";
import { findNodeAtLocation, type ParseErrorCode, parseTree, printParseErrorCode, visit } from "jsonc-parser";
import type * as v from "valibot";
import { issueMessage, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { type CachedFileReader, decodeUtf8 } from "../fs/cached-file.ts";
import { resolvesInside } from "../fs/path-inside.ts";

/**
 * Loads twig's state or registry file, `null` when missing. Errors give line, column and a path, never the
 * file's text: one linked out of its place (refused) or a secret would be quoted by `JSON.parse`'s messages.
 */
export async function loadTwigFile<T>(
  files: CachedFileReader,
  kind: "state" | "registry",
  path: string,
  parse: (bytes: Uint8Array) => Result<T, string>,
  hints: { unreadable: string; invalid: string },
): Promise<Result<T> | null> {
  const [code, within, outside] =
    kind === "state"
      ? (["no_twig_state", dirname(dirname(path)), "the repository"] as const)
      : (["invalid_registry", dirname(path), "its directory"] as const);
  const fail = (verb: string, why: string, hint: string) =>
    err(toolError(code, `Failed to ${verb} ${kind} file ${path} (${why})`, hint));
  if (!(await resolvesInside(path, within))) {
    return fail(
      "read",
      `a symbolic link to a file outside ${outside}`,
      `twig writes ${path} as a plain file: replace the link with a copy, or remove it.`,
    );
  }
  const read = await files.read(path, `twig-${kind}`, parse);
  if (read.kind === "missing") return null;
  if (read.kind === "unreadable") return fail("read", read.cause, hints.unreadable);
  return read.value.ok ? read.value : fail("parse", read.value.error, hints.invalid);
}

/** A JSON file's text and value, or where and why it is not JSON. */
export function parseJsonFile(bytes: Uint8Array): Result<{ text: string; value: unknown }, string> {
  const text = decodeUtf8(bytes);
  if (text === null) return err("not valid UTF-8");
  try {
    return ok({ text, value: JSON.parse(text) });
  } catch {
    const first = firstSyntaxError(text);
    if (first === null) return err("invalid JSON");
    // `CommaExpected` as `comma expected`.
    const problem = printParseErrorCode(first.error)
      .replace(/(?<=[a-z])(?=[A-Z])/g, " ")
      .toLowerCase();
    return err(`invalid JSON at ${lineColumn(text, first.offset)}: ${problem}`);
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

/**
 * `line 4, column 20 (branches.*.github_pr): Invalid type: expected number`. `place`: where the value sits in the
 * file, and that path as shown (`branches.*`: a branch name left out).
 */
export function describeIssueIn(
  text: string,
  issues: readonly v.BaseIssue<unknown>[],
  place: { path: readonly (string | number)[]; shown: string } = { path: [], shown: "" },
): string {
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

export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}
