import { join } from "node:path";
import { inline } from "../../core/plain-text.ts";
import { ok, type Result } from "../../core/result.ts";
import type { CachedFileReader } from "../../fs/cached-file.ts";
import { readConfigFile } from "../config.ts";
import type { RepoLocation } from "../discover.ts";
import { unsupported } from "../hints.ts";
import { WorkBudget } from "../objects/budget.ts";
import { HEADS, resolveRef } from "../refs.ts";
import { commitIds, readShallow } from "./commit-ids.ts";
import { countDivergence } from "./divergence.ts";

/** Commits one walk may take per branch: enough for any real stack, bounded on any history. */
export const WALK_LIMIT = 10_000;
/** A commit subject is one line of a few words; a longer one is clipped. */
const SUBJECT_CHARS = 200;

/** Commits listed per branch; `commits_omitted` says how many more there are. */
const LISTED_COMMITS = 20;

/** Warnings kept per branch word for word; a hostile repository can cause thousands, the rest are counted. */
const MAX_WARNINGS = 10;

/** A branch's tip and drift from its base, as read from `.git`; tools/shared/commits-schema.ts is its reply schema. */
export type BranchCommits = {
  /** `subject`: the first line of the tip's message; `committed_at`: ISO 8601 with the committer's zone (`%cI`). */
  head?: { sha: string; subject: string; committed_at: string };
  /** The branch `ahead`/`behind` count against: its twig parent, or the default root for one without. */
  base?: string;
  ahead?: number;
  behind?: number;
  /** The base has commits the branch lacks: rebase the branch onto it (`twig sync` / restack). */
  needs_restack?: boolean;
  /** The branch's own commits (the `ahead` ones), newest first, at most 20; `commits_omitted`: how many more. */
  commits?: { sha: string; subject: string }[];
  commits_omitted?: number;
  /** Against the branch's upstream: commits not pushed yet, commits pushed by others; `missing`: never pushed. */
  push?: { remote_ref: string; unpushed: number; unpulled: number } | { remote_ref: string; missing: true };
  /** The PR's head commit on GitHub (what its CI and reviews are for), when the local tip differs from it. */
  pr_head?: { sha: string; local_ahead: number; local_behind: number };
  /** Present when the counts above are lower bounds: the walk limit, a shallow clone's boundary, or the call's work budget. */
  counts_limited_by?: "walk_limit" | "shallow" | "budget";
  /** Why some of the above is missing (an unreadable or corrupt object, a missing branch): the first 10, then a count. */
  commit_warnings?: string[];
};

/**
 * A branch and the branch it is compared against (`null`: show its head only); `upstream`: its remote-tracking
 * ref (`refs/remotes/origin/x`) for `push`; `prHead`: its PR's head commit on GitHub for `pr_head`.
 */
export type BranchPair = { branch: string; base: string | null; upstream?: string; prHead?: string };

export type ReadCommitsOptions = {
  /** The tool call's cancellation signal: a cancelled call stops walking. */
  signal?: AbortSignal;
  /** Commits one walk may take (tests lower it). */
  limit?: number;
  /** The call's budget, when other work of the call (a restack forecast) shares it. */
  budget?: WorkBudget;
};

/** Each pair's tip commit and drift from its base; a problem with one branch is that entry's warning. */
export async function readBranchCommits(
  repo: RepoLocation,
  pairs: readonly BranchPair[],
  files: CachedFileReader,
  { signal, limit = WALK_LIMIT, budget = new WorkBudget() }: ReadCommitsOptions = {},
): Promise<Result<BranchCommits[]>> {
  const config = await readConfigFile(join(repo.commonDir, "config"), files);
  if (!config.ok) return config;
  const format = config.value.get("extensions.objectformat")?.toLowerCase() ?? "sha1";
  if (format !== "sha1") {
    return unsupported(
      `${repo.commonDir} stores objects with ${inline(format, 40)} object names, which twig-mcp cannot read`,
      "twig-mcp reads SHA-1 repositories; branch names and twig metadata are still available.",
    );
  }
  const tips = new Map<string, { oid?: string | null; warning?: string }>();
  const resolve = async (refname: string, label: string) => {
    const ref = await resolveRef(repo, refname);
    if (!ref.ok) tips.set(refname, { warning: ref.error.message });
    else if (ref.value === null) tips.set(refname, { oid: null, warning: `${label} does not exist or has no commits` });
    else if (ref.value.length !== 40) tips.set(refname, { warning: `${label} names a non-SHA-1 object` });
    else tips.set(refname, { oid: ref.value });
  };
  for (const { branch, base, upstream } of pairs) {
    for (const name of base === null ? [branch] : [branch, base]) {
      if (!tips.has(HEADS + name)) await resolve(HEADS + name, `Branch '${name}'`);
    }
    if (upstream !== undefined && !tips.has(upstream)) await resolve(upstream, `Remote ref '${upstream}'`);
  }

  const shallow = readShallow(repo.commonDir);
  // Loaded on the first commit read, not at start-up: with its zlib, 0.27 MiB of peak RSS and ~1 ms.
  const { ObjectStore, ObjectReadError } = await import("../objects/object-store.ts");
  using store = ObjectStore.open(
    join(repo.commonDir, "objects"),
    [repo.commonDir, repo.workTree],
    shallow.size === 0,
    budget,
  );
  await store.openPacks(signal);
  const { idOf, oidOf, load } = commitIds(store, shallow);

  const entries: BranchCommits[] = [];
  for (const { branch, base, upstream, prHead } of pairs) {
    signal?.throwIfAborted();
    const warnings: string[] = [];
    const entry: BranchCommits = {};
    const tipOf = (refname: string) => {
      const { oid = null, warning } = tips.get(refname) ?? {};
      if (warning !== undefined) warnings.push(warning);
      return oid;
    };
    /** One count; a broken object is this entry's warning, and the rest of the entry is still answered. */
    const count = async (left: string, right: string, listed = 0) => {
      try {
        const counted = await countDivergence(load, idOf(left), idOf(right), { limit, listed, budget, signal });
        if (counted.truncated !== undefined) entry.counts_limited_by ??= counted.truncated;
        return counted;
      } catch (error) {
        if (!(error instanceof ObjectReadError)) throw error;
        warnings.push(`Commits of '${branch}' could not be read: ${error.message}`);
        return null;
      }
    };
    const subjectOf = (oid: string) => inline(store.readCommit(oid).subject, SUBJECT_CHARS);
    const tip = tipOf(HEADS + branch);
    if (tip !== null) {
      try {
        const commit = store.readCommit(tip);
        entry.head = {
          sha: tip,
          subject: inline(commit.subject, SUBJECT_CHARS),
          committed_at: isoWithZone(commit.time, commit.zone),
        };
        const baseTip = base === null ? null : tipOf(HEADS + base);
        const counted = baseTip === null ? null : await count(baseTip, tip, LISTED_COMMITS);
        if (counted !== null) {
          const { ahead, behind, aheadIds } = counted;
          Object.assign(entry, { base, ahead, behind, needs_restack: behind > 0 });
          if (ahead > 0) entry.commits = aheadIds.map(oidOf).map((sha) => ({ sha, subject: subjectOf(sha) }));
          if (ahead > aheadIds.length) entry.commits_omitted = ahead - aheadIds.length;
        }
      } catch (error) {
        if (!(error instanceof ObjectReadError)) throw error;
        warnings.push(`Commits of '${branch}' could not be read: ${error.message}`);
      }
      if (upstream !== undefined) {
        const remote = tips.get(upstream);
        if (remote?.oid === null) entry.push = { remote_ref: upstream, missing: true };
        else {
          const remoteTip = tipOf(upstream);
          const counted = remoteTip === null ? null : await count(remoteTip, tip);
          if (counted !== null)
            entry.push = { remote_ref: upstream, unpushed: counted.ahead, unpulled: counted.behind };
        }
      }
      const prTip = prHead?.toLowerCase();
      if (prTip !== undefined && prTip !== tip) {
        if (!/^[0-9a-f]{40}$/.test(prTip)) warnings.push(`The PR head '${prHead}' is not a commit id`);
        else if (!store.has(prTip)) {
          warnings.push(
            `The PR head ${prTip} is not in the local repository: \`git fetch\` to compare '${branch}' with it`,
          );
        } else {
          const counted = await count(prTip, tip);
          if (counted !== null)
            entry.pr_head = { sha: prTip, local_ahead: counted.ahead, local_behind: counted.behind };
        }
      }
    }
    warnings.push(...store.notes);
    const unique = [...new Set(warnings)];
    if (unique.length > 0) entry.commit_warnings = unique.slice(0, MAX_WARNINGS).map((warning) => inline(warning, 500));
    if (unique.length > MAX_WARNINGS) entry.commit_warnings?.push(`${unique.length - MAX_WARNINGS} more warnings`);
    entries.push(entry);
  }
  return ok(entries);
}

/** git's `%cI`: the committer's local time with its zone, strict ISO 8601. */
function isoWithZone(time: number, zone: string): string {
  const sign = zone.startsWith("-") ? -1 : 1;
  const minutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const local = new Date((time + minutes * 60) * 1000);
  if (Number.isNaN(local.getTime())) return new Date(0).toISOString();
  return `${local.toISOString().slice(0, 19)}${zone.slice(0, 3)}:${zone.slice(3, 5)}`;
}
