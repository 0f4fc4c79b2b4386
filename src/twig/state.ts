import { dirname, join } from "node:path";
import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { err, ok, type Result } from "../core/result.ts";
import { lstatIfExists } from "../fs/local-fs.ts";
import { discoverRepository } from "../git/discover.ts";
import { checkBranchName } from "../git/refname.ts";
import { describeIssueIn, loadTwigFile, parseJsonFile } from "./json-errors.ts";

/** A Jira key as twig stores it; any other `jira_issue` was not written by twig. */
export const STORED_JIRA_KEY = /^[A-Z]{2,}-[0-9]{1,18}$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `.twig/state.json`: unknown fields ignored, missing lists empty. */
const u32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4294967295));

const BranchMetadataSchema = v.object({
  jira_issue: v.nullish(v.string(), null),
  github_pr: v.nullish(u32, null),
  created_at: v.optional(v.string()),
});

const StateFileSchema = v.object({
  version: v.optional(v.number()),
  updated_at: v.optional(v.string()),
  worktrees: v.optional(
    v.array(v.object({ name: v.string(), path: v.string(), branch: v.string(), created_at: v.optional(v.string()) })),
    [],
  ),
  // Validated entry by entry (see parseStateBytes): a record schema would silently drop branches
  // named `constructor` or `__proto__`, which are valid git branch names.
  branches: v.optional(v.custom<Record<string, unknown>>(isPlainObject, "Expected an object"), {}),
  dependencies: v.optional(v.array(v.object({ child: v.string(), parent: v.string() })), []),
  root_branches: v.optional(v.array(v.object({ branch: v.string(), is_default: v.optional(v.boolean(), false) })), []),
});

export type BranchMetadata = v.InferOutput<typeof BranchMetadataSchema>;

export type TwigState = ReturnType<typeof buildState>;

const EMPTY_STATE = buildState(new Map(), { dependencies: [], root_branches: [], worktrees: [] });

const statePath = (workTree: string) => join(workTree, ".twig", "state.json");

/** `workTree`'s `.twig/state.json`, else (a linked worktree) the main checkout's; missing is empty. */
export async function loadState(ctx: Pick<Context, "files">, workTree: string): Promise<Result<TwigState>> {
  const path = await stateFileFor(ctx, workTree);
  const read = await loadTwigFile(ctx.files, "state", path, parseStateBytes, {
    unreadable: `Check that ${path} is a readable file.`,
    invalid: `Fix the JSON in ${path} by hand, or move it aside: twig treats a missing file as empty state.`,
  });
  return read ?? ok(EMPTY_STATE);
}

/** The state file `loadState` reads for `workTree`: its own if anything is there, else its main checkout's. */
export async function stateFileFor(ctx: Pick<Context, "files">, workTree: string): Promise<string> {
  const own = statePath(workTree);
  // Unreadable counts as there: reading it then says why.
  if ((await lstatIfExists(own).catch(() => null)) !== undefined) return own;
  // A linked worktree's main checkout (its common dir's parent, as twig takes it); one `lstat` otherwise.
  if ((await lstatIfExists(join(workTree, ".git")))?.isFile() !== true) return own;
  const found = await discoverRepository(workTree, ctx.files);
  if (!found.ok || !found.value.isLinkedWorktree) return own;
  const main = dirname(found.value.commonDir);
  return main === workTree ? own : statePath(main);
}

export function parseStateBytes(bytes: Uint8Array): Result<TwigState, string> {
  const parsedJson = parseJsonFile(bytes);
  if (!parsedJson.ok) return parsedJson;
  const { text, value: json } = parsedJson.value;
  // valibot's object schema accepts arrays; twig's state is always a JSON object.
  if (!isPlainObject(json)) return err("Invalid type: Expected a JSON object at the top level");
  const legacy = legacyBranches(json, text);
  if (!legacy.ok) return legacy;
  // A 0.1.4 file's `branches` is a list, already read above; the map schema would refuse it.
  const current = Array.isArray(json.branches) ? { ...json, branches: {} } : json;
  const parsed = v.safeParse(StateFileSchema, current);
  if (!parsed.success) return err(describeIssueIn(text, parsed.issues));
  const branches = new Map<string, BranchMetadata>(legacy.value ?? []);
  for (const [name, raw] of Object.entries(parsed.output.branches)) {
    const entry = v.safeParse(BranchMetadataSchema, raw);
    // The branch name is the file's text: its place is given by line and column instead.
    if (!entry.success)
      return err(describeIssueIn(text, entry.issues, { path: ["branches", name], shown: "branches.*" }));
    branches.set(name, entry.output);
  }
  return ok(buildState(branches, parsed.output));
}

/** Records as twig wrote them before 0.1.5: current twig cannot load them, but they still link branches. */
const LegacyEntrySchema = v.object({ branch: v.string(), ...BranchMetadataSchema.entries });

function legacyProblem(format: string, problem: string): string {
  return `written in the format of ${format}, and ${problem}; current twig cannot load this format: to upgrade, move the file aside and run \`twig sync\`, which links branches again to the Jira keys in their names and to their pull requests`;
}

/** A pre-0.1.5 file's records (a later one for a branch wins, as in twig), or `null` if it has none. */
function legacyBranches(
  json: Record<string, unknown>,
  text: string,
): Result<Map<string, BranchMetadata> | null, string> {
  const lists: [string, string, unknown][] = [];
  if (json.branch_issues !== undefined)
    lists.push(["branch_issues", "twig 0.1.0–0.1.3 (`branch_issues`)", json.branch_issues]);
  if (Array.isArray(json.branches)) lists.push(["branches", "twig 0.1.4 (`branches` as a list)", json.branches]);
  if (lists.length === 0) return ok(null);
  const records = new Map<string, BranchMetadata>();
  for (const [field, format, list] of lists) {
    if (!Array.isArray(list)) return err(legacyProblem(format, `${field}: Invalid type: Expected an array`));
    for (const [index, raw] of list.entries()) {
      const entry = v.safeParse(LegacyEntrySchema, raw);
      if (!entry.success) {
        const place = { path: [field, index], shown: `${field}[${index}]` };
        return err(legacyProblem(format, describeIssueIn(text, entry.issues, place)));
      }
      const { branch, ...meta } = entry.output;
      records.set(branch, meta);
    }
  }
  return ok(records);
}

/**
 * Parents indexed by child (`parentsOf`: in file order, the first is "the parent" everywhere), and the names git's
 * ref rules refuse (prompts leave them out: perhaps made up to smuggle text) and the `jira_issue` values twig would not
 * write ({@link STORED_JIRA_KEY}), found once per parsed file.
 */
function buildState(
  branches: ReadonlyMap<string, BranchMetadata>,
  { dependencies, root_branches: roots, worktrees }: Omit<v.InferOutput<typeof StateFileSchema>, "branches">,
) {
  const grouped = Map.groupBy(dependencies, (dependency) => dependency.child);
  const parents = new Map([...grouped].map(([child, edges]) => [child, edges.map((edge) => edge.parent)]));
  // Each name checked once: a hostile state may repeat one thousands of times.
  const names = new Set([...branches.keys(), ...dependencies.flatMap((d) => [d.child, d.parent])]);
  for (const { branch } of roots) names.add(branch);
  const invalidNames = new Set([...names].filter((name) => checkBranchName(name) !== null));
  const invalidJiraKeys = new Set<string>();
  for (const [name, { jira_issue: key }] of branches) {
    if (key != null && key !== "" && !STORED_JIRA_KEY.test(key)) invalidJiraKeys.add(name);
  }
  const parentsOf = (branch: string): readonly string[] => parents.get(branch) ?? [];
  return { branches, dependencies, roots, worktrees, parentsOf, invalidNames, invalidJiraKeys } as const;
}
