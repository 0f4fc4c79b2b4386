import type * as v from "valibot";
import { type ToolError, toolError } from "../core/errors.ts";
import { printable, quoteReceived } from "../core/plain-text.ts";
import { closeNames, orList } from "../core/suggest.ts";

/** How many unknown names one message lists; a flood of keys is summarised by its count. */
const LISTED_UNKNOWN = 3;

/** A tool's declared arguments: its input object schema's entries. */
export const entriesOf = (input: v.GenericSchema) => (input as unknown as { entries?: v.ObjectEntries }).entries;

/** An undeclared name is a mistake: `{"brnch": "x"}` dropped silently would answer about the current branch. */
export function unknownArgumentError(toolName: string, input: v.GenericSchema, args: unknown): ToolError | null {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return null;
  const known = Object.keys(entriesOf(input) ?? {});
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length === 0) return null;
  const first = unknown[0] as string;
  const listed = unknown.slice(0, LISTED_UNKNOWN).map((key) => `'${printable(key)}'`);
  const more = unknown.length > LISTED_UNKNOWN ? ` and ${unknown.length - LISTED_UNKNOWN} more` : "";
  const what = unknown.length === 1 ? "unknown argument" : "unknown arguments";
  const suggestions = unknown.length === 1 ? closeNames(first, known) : [];
  return toolError(
    "invalid_params",
    `Invalid arguments for ${toolName}: ${what} ${listed.join(", ")}${more}${suggestions.length > 0 ? `; did you mean ${orList(suggestions)}?` : ""}`,
    argumentsHint(toolName, input),
  );
}

/** The tool's argument names, for a caller who cannot see its inputSchema (a shell user). */
export function argumentsHint(toolName: string, input: v.GenericSchema): string {
  const entries = Object.entries(entriesOf(input) ?? {});
  const named = entries.map(([key, schema]) => (/optional|nullish/.test(schema.type) ? key : `${key} (required)`));
  return named.length === 0 ? `${toolName} takes no arguments.` : `${toolName} takes: ${named.join(", ")}.`;
}

/** The first validation problem in words a model can act on; what was received is quoted short and printable. */
export function describeArgumentIssue(input: v.GenericSchema, issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return "invalid";
  const keys = (issue.path ?? []).map((item) => String(item.key));
  const where = keys.map((key) => printable(key)).join(".");
  const options = keys.length === 1 ? picklistOptions(input, keys[0] as string) : null;
  let problem: string;
  if (keys.length === 1 && issue.type === "object" && issue.input === undefined) {
    // valibot's words for an absent key ("Invalid key: Expected … but received undefined") read as a type error.
    return `missing required argument "${where}"`;
  }
  if (options !== null && issue.type === "picklist") {
    const guesses = typeof issue.input === "string" ? closeNames(issue.input, options) : [];
    problem = `${quoteReceived(issue.input)} is not one of ${options.map((o) => `'${o}'`).join(", ")}${guesses.length > 0 ? `; did you mean ${orList(guesses)}?` : ""}`;
  } else if (issue.received?.startsWith('"') && issue.message.endsWith(`received ${issue.received}`)) {
    // valibot repeats a received string whole; a 1 MB argument must not come back in the error.
    problem = `${issue.message.slice(0, -issue.received.length)}${quoteReceived(issue.input)}`;
  } else {
    problem = issue.message;
  }
  return where ? `${where}: ${problem}` : problem;
}

/** The allowed values of a top-level picklist argument (optional or not), else `null`. */
function picklistOptions(input: v.GenericSchema, key: string): string[] | null {
  let schema = entriesOf(input)?.[key] as unknown;
  for (let depth = 0; depth < 4 && schema !== undefined; depth++) {
    const node = schema as { type?: string; options?: unknown; wrapped?: unknown; pipe?: unknown[] };
    if (node.type === "picklist" && Array.isArray(node.options)) return node.options.map(String);
    schema = node.wrapped ?? (Array.isArray(node.pipe) ? node.pipe[0] : undefined);
    if (schema === node) return null;
  }
  return null;
}
