import * as v from "valibot";
import { clip, scrubControl } from "./plain-text.ts";

/** Tool error codes: upstream's first seven, then failures that each need their own fix. */
const ErrorCodeSchema = v.picklist([
  "no_repo",
  "no_twig_state",
  "credentials_missing",
  "not_found",
  "invalid_params",
  "network_error",
  "internal",
  "credentials_invalid",
  "rate_limited",
  "unsupported_repo",
  "unsupported_api",
  "invalid_config",
  "invalid_registry",
  "repo_missing",
  "reply_too_large",
  "cancelled",
]);
export type ErrorCode = v.InferOutput<typeof ErrorCodeSchema>;

/**
 * `kind` is what code that handles a failure decides on, never its words: `refused`, a 403 or 404 on one resource
 * (the rest of a call goes on). An additive field: a tool's error reply carries code, message and hint only; an
 * error inside a reply (a stack's PR) keeps it. A request its caller stopped is code `cancelled`, never a failure.
 */
export const ToolErrorSchema = v.object({
  code: ErrorCodeSchema,
  message: v.string(),
  hint: v.optional(v.string()),
  kind: v.optional(v.picklist(["refused"])),
});
export type ToolError = v.InferOutput<typeof ToolErrorSchema>;
type FailureKind = NonNullable<ToolError["kind"]>;

/** `hint` and `kind` are left out (not `undefined`) when absent so the JSON matches upstream. */
export function toolError(code: ErrorCode, message: string, hint?: string, kind?: FailureKind): ToolError {
  const error: ToolError = hint === undefined ? { code, message } : { code, message, hint };
  if (kind !== undefined) error.kind = kind;
  return error;
}

/** What stopped because its caller withdrew it: `cancelled`, no network failure. */
export const cancelledError = (what: string): ToolError => toolError("cancelled", `${what} was cancelled`);

/** `worktrees[0].path: expected string`: never the value received, which may be a secret. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return "invalid";
  const where = (first.path ?? [])
    .map((item) => (typeof item.key === "number" ? `[${item.key}]` : `.${pathKey(item.key)}`))
    .join("")
    .replace(/^\./, "");
  const message = issueMessage(first);
  return where ? `${where}: ${message}` : message;
}

/** valibot's `Invalid <what>: Expected <x> but received <value>`, less the value. */
export function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (!issue.message.includes(issue.received)) return issue.message;
  const label = /^Invalid [a-z ]{1,30}(?=:)/.exec(issue.message)?.[0] ?? "Invalid value";
  return issue.expected === null ? label : `${label}: expected ${clip(issue.expected, 80)}`;
}

/** Object keys are received text too: shown short and without control characters. */
function pathKey(key: unknown): string {
  return clip(scrubControl(String(key)), 40);
}
