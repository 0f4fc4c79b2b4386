import * as v from "valibot";

/** Tool error codes: upstream's first seven, then failures that each need their own fix. */
export const ErrorCodeSchema = v.picklist([
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
]);
export type ErrorCode = v.InferOutput<typeof ErrorCodeSchema>;

export const ToolErrorSchema = v.object({
  code: ErrorCodeSchema,
  message: v.string(),
  hint: v.optional(v.string()),
});
export type ToolError = v.InferOutput<typeof ToolErrorSchema>;

/** Builds an error value; `hint` is left out (not `undefined`) when absent so the JSON matches upstream. */
export function toolError(code: ErrorCode, message: string, hint?: string): ToolError {
  return hint === undefined ? { code, message } : { code, message, hint };
}
