import type { Context } from "../core/context.ts";
import { plainText } from "../core/plain-text.ts";
import { compareBytewise } from "../git/bytewise.ts";
import { checkBranchName } from "../git/refname.ts";
import { listLocalBranches } from "../git/refs.ts";
import { loadRegistry } from "../twig/registry.ts";
import { loadState, STORED_JIRA_KEY } from "../twig/state.ts";
import { openWorkspace, workspaceAndState } from "./workspace.ts";

/** Values a client may offer while the user types; failures mean "no suggestions", never an error. */
export async function branchCandidates(ctx: Context): Promise<string[]> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return [];
  const [local, state] = await Promise.all([
    listLocalBranches(workspace.value),
    loadState(ctx, workspace.value.workTree),
  ]);
  const names = new Set(local.ok ? local.value : []);
  if (state.ok) for (const name of state.value.branches.keys()) names.add(name);
  // A committed state file may name branches git would refuse: those are never offered.
  return [...names].filter((name) => checkBranchName(name) === null).sort(compareBytewise);
}

/** PR numbers and Jira keys twig has linked to branches, for the prompts that take one. */
export async function linkedCandidates(ctx: Context, kind: "pr_number" | "issue_key"): Promise<string[]> {
  const local = await workspaceAndState(ctx);
  if (!local.ok) return [];
  const values = new Set<string>();
  for (const meta of local.value.state.branches.values()) {
    if (kind === "pr_number" && meta.github_pr != null) values.add(String(meta.github_pr));
    if (kind === "issue_key" && meta.jira_issue && STORED_JIRA_KEY.test(meta.jira_issue)) values.add(meta.jira_issue);
  }
  const list = [...values];
  return kind === "pr_number" ? list.sort((a, b) => Number(a) - Number(b)) : list.sort(compareBytewise);
}

export async function repositoryCandidates(ctx: Context): Promise<string[]> {
  const registry = await loadRegistry(ctx);
  return registry.ok ? [...new Set(registry.value.map((entry) => entry.name))].sort(compareBytewise) : [];
}

const MAX_COMPLETIONS = 100;

/** Prefix, then substring matches, at most 100; never a value with a hidden character (shown as it is). */
export function completeFrom(all: readonly string[], typed: string) {
  const candidates = all.filter((value) => plainText(value) === value);
  const lower = typed.toLowerCase();
  const prefix = candidates.filter((value) => value.startsWith(typed));
  const other = candidates.filter((value) => !value.startsWith(typed) && value.toLowerCase().includes(lower));
  const matches = [...prefix, ...other];
  return {
    values: matches.slice(0, MAX_COMPLETIONS),
    total: matches.length,
    hasMore: matches.length > MAX_COMPLETIONS,
  };
}
