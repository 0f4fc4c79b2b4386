import { toolError } from "../core/errors.ts";
import { err, type Result } from "../core/result.ts";

/** A repository this reader does not understand (git may, or refuse it too). */
export const unsupported = (message: string, hint: string) => err(toolError("unsupported_repo", message, hint));

export const unreadable = (path: string, cause: string, verb: "read" | "list" = "read"): Result<never> =>
  err(
    toolError(
      "internal",
      `Cannot ${verb} ${path}: ${cause}`,
      `Check that ${path} is readable by the user running twig-mcp (and is a file, or a directory where git keeps one); \`git status\` in the repository shows whether git can read it.`,
    ),
  );
