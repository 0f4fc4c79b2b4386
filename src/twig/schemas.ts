import * as v from "valibot";

/** `.twig/state.json` and `registry.json`; unknown fields ignored, missing lists empty. */
const u32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4294967295));

/** A Jira key as twig stores it; any other `jira_issue` was not written by twig. */
export const STORED_JIRA_KEY = /^[A-Z]{2,}-[0-9]{1,18}$/;

export const BranchMetadataSchema = v.object({
  jira_issue: v.nullish(v.string(), null),
  github_pr: v.nullish(u32, null),
  created_at: v.optional(v.string()),
});

export const StateFileSchema = v.object({
  version: v.optional(v.number()),
  updated_at: v.optional(v.string()),
  worktrees: v.optional(
    v.array(v.object({ name: v.string(), path: v.string(), branch: v.string(), created_at: v.optional(v.string()) })),
    [],
  ),
  // Validated entry by entry (see state.ts): a record schema would silently drop branches
  // named `constructor` or `__proto__`, which are valid git branch names.
  branches: v.optional(v.custom<Record<string, unknown>>(isPlainObject, "Expected an object"), {}),
  dependencies: v.optional(v.array(v.object({ child: v.string(), parent: v.string() })), []),
  root_branches: v.optional(v.array(v.object({ branch: v.string(), is_default: v.optional(v.boolean(), false) })), []),
});

export const RegistryFileSchema = v.array(
  v.object({ path: v.string(), name: v.string(), last_fetch: v.nullish(v.string(), null) }),
);

export type StateFile = v.InferOutput<typeof StateFileSchema>;
export type BranchMetadata = v.InferOutput<typeof BranchMetadataSchema>;
export type RegistryEntry = v.InferOutput<typeof RegistryFileSchema>[number];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
