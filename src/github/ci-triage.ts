/**
 * Whose a failing check is, from evidence: `flaky` (another attempt on the same commit passed), `inherited` (the
 * base branch heads an open PR that fails the same check), `also_on_base` (the base branch's head fails it), `new`
 * (it passes there, or the base has no such check), `unknown` (nothing to compare with), each with the next move.
 */
import * as v from "valibot";
import { inline } from "../core/plain-text.ts";
import type { Result } from "../core/result.ts";
import type { GitHubTarget } from "./target.ts";

const AttemptSchema = v.object({
  conclusion: v.nullable(v.string()),
  started_at: v.nullable(v.string()),
  completed_at: v.nullable(v.string()),
});

export const TriageSchema = v.object({
  verdict: v.picklist(["flaky", "also_on_base", "inherited", "new", "unknown"]),
  /** The evidence in words. */
  why: v.string(),
  /** What to do next. */
  hint: v.string(),
  /** flaky: every run of the check on the commit, oldest first. */
  attempts: v.optional(v.array(AttemptSchema)),
  /**
   * The base branch's head as compared (a stack's entry keeps `ref` and `pr`); `tests`: this check's failing tests
   * that fail there too (get_ci_log).
   */
  base: v.optional(
    v.object({
      ref: v.string(),
      sha: v.optional(v.nullable(v.string())),
      conclusion: v.optional(v.nullable(v.string())),
      pr: v.optional(v.number()),
      tests: v.optional(v.array(v.string())),
    }),
  ),
});
export type Triage = v.InferOutput<typeof TriageSchema>;

type Attempt = v.InferOutput<typeof AttemptSchema> & { id: number };
/** A check as judged (`judged` in pr-status.ts): a run with every run of its name on the commit, or a commit status. */
type JudgedCheck = {
  name: string;
  outcome: "passing" | "failing" | "pending";
  run?: Attempt & { details_url: string | null; url: string | null; attempts?: readonly Attempt[] };
  status?: { state: string };
};
/** The base branch's head: its checks, and the open PR whose head it is (then a failure there is inherited). */
export type BaseChecks = { ref: string; sha: string | null; pr: number | null; checks: readonly JudgedCheck[] };

/** Attempts shown as evidence; a check re-run more often keeps its latest. */
const MAX_ATTEMPTS = 10;
export const PASSING_CONCLUSIONS = new Set(["success", "neutral", "skipped"]);

/** The verdict on one failing check; `base` is `null` when the PR is not compared (closed, merged). */
export function triage(check: JudgedCheck, base: Result<BaseChecks> | null, target: GitHubTarget): Triage | undefined {
  const { run } = check;
  const name = inline(check.name, 80);
  const passed = run?.attempts?.filter((attempt) => PASSING_CONCLUSIONS.has(attempt.conclusion ?? "")) ?? [];
  if (run !== undefined && passed.length > 0) {
    const when = (passed.at(-1)?.id ?? 0) < run.id ? "an earlier" : "a later";
    const runId = /\/actions\/runs\/(\d+)\//.exec(run.details_url ?? "")?.[1];
    const repo = `${target.host === "github.com" ? "" : `${target.host}/`}${target.owner}/${target.repo}`;
    const rerun =
      runId === undefined
        ? `re-run it from its page${run.url ? ` (${inline(run.url, 300)})` : ""}`
        : `re-run its failed jobs with \`gh run rerun ${runId} --failed -R ${repo}\``;
    return {
      verdict: "flaky",
      why: `${name} passed on ${when} run on this commit (${time(passed.at(-1)?.completed_at) ?? "time unknown"}); the latest of its suite failed`,
      hint: `Probably not caused by this PR: ${rerun}.`,
      attempts: (run.attempts ?? []).slice(-MAX_ATTEMPTS).map((a) => ({
        conclusion: a.conclusion,
        started_at: time(a.started_at),
        completed_at: time(a.completed_at),
      })),
    };
  }
  if (base === null) return undefined;
  if (!base.ok) return unknown(`the base branch's checks could not be read: ${base.error.message}`);
  const { ref, sha, pr, checks } = base.value;
  const about = [...(sha === null ? [] : [`head ${sha.slice(0, 12)}`]), ...(pr === null ? [] : [`#${pr}`])];
  const where = `${inline(ref, 100)}${about.length === 0 ? "" : ` (${about.join(", ")})`}`;
  if (checks.length === 0) return unknown(`${where} has no checks to compare with`);
  const same = checks.filter((other) => other.name === check.name);
  const there = same.find((other) => other.outcome === "failing") ?? same.find((o) => o.outcome === "pending");
  const evidence = {
    ref: inline(ref, 255),
    sha,
    conclusion: there?.run?.conclusion ?? there?.status?.state ?? same[0]?.run?.conclusion ?? null,
    ...(pr !== null && { pr }),
  };
  if (there?.outcome === "pending") {
    const hint = `Ask again once it finishes on ${inline(ref, 100)}, or read the failure and judge.`;
    return { ...unknown(`${name} is still running on ${where}`), hint, base: evidence };
  }
  if (there === undefined) {
    const why = same.length === 0 ? `${where} has no check named ${name}` : `${name} passes on ${where}`;
    return {
      verdict: "new",
      why,
      hint: `Caused by this PR: fix it (${inline(ref, 100)} does not fail it).`,
      base: evidence,
    };
  }
  return {
    verdict: pr === null ? "also_on_base" : "inherited",
    why: `${name} fails on ${where} too`,
    hint: `Not caused by this PR: fix or wait on ${inline(ref, 100)}${pr === null ? "" : ` (#${pr})`}.`,
    base: evidence,
  };
}

/** GitHub's timestamp, as untrusted as any of its text. */
const time = (at: string | null | undefined) => (at == null ? null : inline(at, 40));

/** The hint of a failure nothing could be compared with: a stack's entry leaves it out. */
export const NOT_COMPARED = "Not compared: read the failure and judge.";

function unknown(why: string): Triage {
  return { verdict: "unknown", why, hint: NOT_COMPARED };
}

/**
 * With both sides' failing tests parsed: a test failing here only makes the failure `new`; `base.tests` names the
 * shared ones. A base listing fewer than it failed (`complete` false) cannot tell, so the verdict stands.
 */
export function compareTests(found: Triage, mine: readonly string[], theirs: readonly string[], complete: boolean) {
  if ((found.verdict !== "also_on_base" && found.verdict !== "inherited") || mine.length === 0 || theirs.length === 0)
    return found;
  const shared = mine.filter((test) => theirs.includes(test));
  const only = mine.filter((test) => !theirs.includes(test));
  const base = { ...(found.base as NonNullable<Triage["base"]>), tests: shared };
  if (only.length === 0 || !complete) return { ...found, base };
  const ref = inline(base.ref, 100);
  const named = only.slice(0, 3).join(", ") + (only.length > 3 ? ` and ${only.length - 3} more` : "");
  return {
    verdict: "new" as const,
    why: `${found.why}, but ${only.length} of its failing tests do not fail there: ${named}`,
    hint: `Caused by this PR: fix ${only.length === 1 ? "that test" : "those tests"} (${ref} fails others).`,
    base,
  };
}

/** The verdict in a few words, for a summary or a stack line; empty when there is nothing to add. */
export function triageWords(found: Pick<Triage, "verdict" | "base"> | undefined): string {
  const ref = inline(found?.base?.ref ?? "", 60);
  const words = {
    flaky: "flaky: passed on another attempt",
    also_on_base: `also failing on ${ref}`,
    inherited: `inherited from #${found?.base?.pr} (${ref})`,
    new: "new",
    unknown: "",
  };
  return found === undefined ? "" : words[found.verdict];
}
