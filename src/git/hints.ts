import { type ErrorCode, toolError } from "../core/errors.ts";
import { err, type Result } from "../core/result.ts";

export const fail = (code: ErrorCode, message: string, hint?: string): Result<never> =>
  err(toolError(code, message, hint));

/** A repository this reader does not understand (git may, or refuse it too). */
export const unsupported = (message: string, hint: string) => fail("unsupported_repo", message, hint);

export const unreadable = (path: string, cause: string, verb: "read" | "list" = "read"): Result<never> =>
  fail(
    "internal",
    `Cannot ${verb} ${path}: ${cause}`,
    `Check that ${path} is readable by the user running twig-mcp (and is a file, or a directory where git keeps one); \`git status\` in the repository shows whether git can read it.`,
  );
