import * as v from "valibot";
import { toolError } from "../core/errors.ts";
import { clip, inline, quoteReceived } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { closest } from "../core/suggest.ts";
import { compareTests, TriageSchema, triage, triageWords } from "../github/ci-triage.ts";
import { actionsJobId, getJob, listAnnotations, readJobLog } from "../github/job-log.ts";
import { cleanCiText, isFailure } from "../github/log-filter.ts";
import {
  baseChecks,
  type CheckRun,
  type CommitStatus,
  classifyCheck,
  commitChecks,
  judged,
} from "../github/pr-status.ts";
import type { GitHubCall } from "../github/request.ts";
import type { ServiceContext } from "./shared/context.ts";
import { defineTool, type ReplyBudget } from "./shared/define.ts";
import { openPr, PrNumberSchema, targetParams } from "./shared/github-params.ts";
import { count, cutFields, largestFitting } from "./shared/paging.ts";
import { integerIn, unpublished } from "./shared/params.ts";

const DEFAULT_LOG_LINES = 50;
const MAX_LOG_LINES = 500;
/** Checks read when none is named: the first failing ones. */
const MAX_CHECKS = 3;
/** A check report's summary and text, each; a report is a page, not a log. */
const MAX_REPORT_CHARS = 4000;
const MAX_ANNOTATIONS = 50;
/** Checks named in a message (unknown check, failing ones not read). */
const MAX_NAMES_LISTED = 30;
const LOG_EXPIRED =
  "GitHub no longer keeps this job's log (HTTP 410): logs expire after the repository's retention period (90 days by default).";

const CiCheckSchema = v.object({
  name: v.string(),
  id: v.nullable(v.number()),
  source: v.picklist(["job_log", "check_run_report", "commit_status"]),
  status: v.string(),
  conclusion: v.nullable(v.string()),
  url: v.nullable(v.string()),
  failed_steps: v.optional(v.array(v.string())),
  failures: v.optional(v.array(v.object({ test: v.string(), message: v.string() }))),
  failures_omitted: v.optional(v.number()),
  totals: v.optional(v.string()),
  errors: v.optional(v.array(v.object({ step: v.string(), message: v.string() }))),
  errors_omitted: v.optional(v.number()),
  log: v.optional(
    v.array(
      v.object({
        step: v.string(),
        earlier_lines: v.number(),
        passing_lines: v.optional(v.number()),
        failure_lines: v.optional(v.number()),
        lines: v.array(v.string()),
      }),
    ),
  ),
  log_bytes: v.optional(v.number()),
  title: v.optional(v.nullable(v.string())),
  summary: v.optional(v.nullable(v.string())),
  text: v.optional(v.nullable(v.string())),
  annotations: v.optional(
    v.array(
      v.object({ path: v.string(), line: v.nullable(v.number()), title: v.nullable(v.string()), message: v.string() }),
    ),
  ),
  description: v.optional(v.nullable(v.string())),
  note: v.optional(v.string()),
  triage: v.optional(TriageSchema),
});
type CiCheck = v.InferOutput<typeof CiCheckSchema>;

const CiLogSchema = v.object({
  pull_request: v.number(),
  head_sha: v.string(),
  /** One line per check read: its failing tests, else its first error, report title or status. */
  summary: v.array(v.string()),
  checks: v.array(CiCheckSchema),
  notes: v.optional(v.array(v.string())),
  ...cutFields(["lines"]),
});
type CiLog = v.InferOutput<typeof CiLogSchema>;

export const getCiLogTool = defineTool({
  name: "get_ci_log",
  title: "Why CI failed",
  description:
    "Why a PR's CI failed, whose it is (flaky, on base, new): failing tests (pytest, jest, go, …), errors, failed step's log tail, report. Default: the current branch's PR.",
  group: "github",
  input: v.object({
    pr_number: v.optional(PrNumberSchema),
    check: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.maxLength(200),
        unpublished("minLength", "maxLength"),
        v.description("Check name or id. Default: the failing ones (up to 3)."),
      ),
    ),
    lines: v.optional(
      v.pipe(
        integerIn(1, 1_000_000),
        unpublished("maximum"),
        v.description(`Log lines per failed step (default ${DEFAULT_LOG_LINES}, max ${MAX_LOG_LINES}).`),
      ),
    ),
    ...targetParams,
  }),
  output: CiLogSchema,
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPr(ctx, args, info);
    if (!opened.ok) return opened;
    const { call, number, pr } = opened.value;
    const commit = commitChecks(call, pr.head_sha);
    // The base branch's head, read in the same round trip: whose a failure is.
    const base = pr.state === "open" && !pr.merged ? baseChecks(call, pr.base) : null;
    const [runs, statuses, compared] = await Promise.all([commit.runs, commit.statuses, base]);
    if (!runs.ok) return runs;
    if (!statuses.ok) return statuses;
    const asked = args.lines ?? DEFAULT_LOG_LINES;
    const lines = Math.min(asked, MAX_LOG_LINES);
    const notes = asked > MAX_LOG_LINES ? [`lines ${asked} is over the maximum; used ${MAX_LOG_LINES}.`] : [];
    const chosen = chooseChecks(judged(runs.value.items, statuses.value.items), args.check, number, notes);
    if (!chosen.ok) return chosen;
    const checks = await Promise.all(
      chosen.value.map(async (c) => {
        const verdict = c.outcome === "failing" ? triage(c, compared, call.target) : undefined;
        // Failing on the base too: its job's failing tests, read with the same parsers, say whether they are the same.
        const onBase = verdict?.verdict === "also_on_base" || verdict?.verdict === "inherited";
        const there = onBase && compared?.ok ? compared.value.runs.find((r) => failingNamed(r, c.name)) : undefined;
        const [check, theirs] = await Promise.all([
          "run" in c ? readCheckRun(call, ctx, c.run, lines) : fromStatus(c.status, call),
          there && baseTests(call, ctx, there),
        ]);
        if (verdict === undefined) return check;
        const mine = check.failures?.map((failure) => failure.test) ?? [];
        return { ...check, triage: theirs ? compareTests(verdict, mine, theirs.tests, theirs.complete) : verdict };
      }),
    );
    // Each check in one line, then whose it is: `name: 2 failed: test: message, also failing on main`.
    const summary = checks.map((check) => [headline(check), triageWords(check.triage)].filter(Boolean).join(", "));
    return ok({ pull_request: number, head_sha: pr.head_sha, summary, checks, ...(notes.length > 0 ? { notes } : {}) });
  },
  fit: fitCiLog,
});

type Candidate = ReturnType<typeof judged<CheckRun, CommitStatus>>[number];

/**
 * The checks to read, said in `notes`: the named one (by id or name, exact before case-insensitive; runs and statuses
 * may share a name), else the failing ones; at most {@link MAX_CHECKS}, failing first.
 */
function chooseChecks(all: Candidate[], check: string | undefined, pr: number, notes: string[]): Result<Candidate[]> {
  const failing = (candidate: Candidate) => candidate.outcome === "failing";
  const shown = (name: string) => JSON.stringify(inline(name, 100));
  let found: Candidate[];
  if (check === undefined) {
    found = all.filter(failing);
    if (found.length === 0) {
      const pending = all.filter((candidate) => candidate.outcome === "pending").length;
      notes.push(
        all.length === 0
          ? `PR #${pr}'s head commit has no checks.`
          : `No failing checks on PR #${pr} (${count(all.length)} checks, ${count(pending)} pending). Pass check to read one anyway.`,
      );
    }
  } else {
    const byId = /^\d{1,16}$/.test(check) ? all.filter((c) => "run" in c && c.run.id === Number(check)) : [];
    const exact = all.filter((candidate) => candidate.name === check);
    const anyCase = all.filter((candidate) => candidate.name.toLowerCase() === check.toLowerCase());
    found = byId.length > 0 ? byId : exact.length > 0 ? exact : anyCase;
    if (found.length === 0) {
      const names = [...new Set(all.map((candidate) => candidate.name))];
      const guess = closest(check, names);
      const more = names.length > MAX_NAMES_LISTED ? ` and ${count(names.length - MAX_NAMES_LISTED)} more` : "";
      const listed = `Its checks: ${names.slice(0, MAX_NAMES_LISTED).map(shown).join(", ")}${more}.`;
      const didYouMean = guess === null ? "" : `Did you mean ${shown(guess)}? `;
      const hint = didYouMean + (names.length === 0 ? "Its head commit has no checks." : listed);
      return err(toolError("not_found", `No check named ${quoteReceived(check)} on PR #${pr}`, hint));
    }
    found = [...found.filter(failing), ...found.filter((candidate) => !failing(candidate))];
  }
  const left = found.slice(MAX_CHECKS);
  if (left.length > 0) {
    const names = left.slice(0, MAX_NAMES_LISTED).map((candidate) => shown(candidate.name));
    notes.push(`${count(left.length)} more not read: ${names.join(", ")}. Pass check to read one.`);
  }
  return ok(found.slice(0, MAX_CHECKS));
}

const failingNamed = (run: CheckRun, name: string) => run.name === name && classifyCheck(run) === "failing";

/** The failing tests of the base's same check, from its Actions job's log; `null` for another app's or no log. */
async function baseTests(call: GitHubCall, ctx: ServiceContext, run: CheckRun) {
  const jobId = actionsJobId(run);
  if (jobId === null) return null;
  const job = await getJob(call, jobId);
  const steps = job.ok ? job.value.steps : [];
  const log = await readJobLog(call, { jobId, steps, lines: 0, fetch: ctx.fetch, env: ctx.env });
  if (!log.ok || log.value.kind !== "read") return null;
  const { failures, failures_omitted } = log.value.log;
  return { tests: failures.map((failure) => failure.test), complete: failures_omitted === 0 };
}

/** A check run: an Actions job's log, or another app's report and failure annotations. */
async function readCheckRun(call: GitHubCall, ctx: ServiceContext, run: CheckRun, lines: number): Promise<CiCheck> {
  const jobId = actionsJobId(run);
  const base = { name: inline(run.name), id: run.id, status: run.status, conclusion: run.conclusion, url: run.url };
  if (jobId === null) return readReport(call, run, { ...base, source: "check_run_report" });
  const job = await getJob(call, jobId);
  const steps = job.ok ? job.value.steps : [];
  const failed = steps.filter((step) => isFailure(step.conclusion));
  const failed_steps = failed.map((step) => inline(cleanCiText(step.name, call.connection.secrets), 200));
  const check: CiCheck = { ...base, source: "job_log", failed_steps };
  const log = await readJobLog(call, { jobId, steps, lines, fetch: ctx.fetch, env: ctx.env });
  if (!log.ok || log.value.kind !== "read") {
    const status = job.ok ? job.value.status : run.status;
    const note = !log.ok
      ? errorNote(log.error)
      : log.value.kind === "expired"
        ? LOG_EXPIRED
        : status === "completed"
          ? "GitHub has no log for this job (HTTP 404): it was deleted, or the token cannot read Actions."
          : `The log is not available yet: the job is ${inline(status, 40)}. GitHub serves it once the job finishes.`;
    // Without the log, the check run's own report (its title, summary and the job's error annotations) says why.
    if (!run.output?.title && !run.output?.summary && !run.output?.annotations_count) return { ...check, note };
    const report = await readReport(call, run, { ...check, source: "check_run_report" });
    return { ...report, note: report.note === undefined ? note : `${note} ${report.note}` };
  }
  const read = log.value;
  const notes = [
    ...(job.ok ? [] : [`The job's steps could not be read: ${errorNote(job.error)}`]),
    ...(read.cut === null ? [] : [read.cut]),
  ];
  const { failures, failures_omitted, totals } = read.log;
  return {
    ...check,
    ...(failures.length > 0 ? { failures } : {}),
    ...(failures_omitted > 0 ? { failures_omitted } : {}),
    ...(totals.length > 0 ? { totals: totals.join("; ") } : {}),
    errors: read.log.errors,
    ...(read.log.errors_omitted > 0 ? { errors_omitted: read.log.errors_omitted } : {}),
    log: read.log.steps,
    log_bytes: read.bytes,
    ...(notes.length > 0 ? { note: notes.join(" ") } : {}),
  };
}

async function readReport(call: GitHubCall, run: CheckRun, check: CiCheck): Promise<CiCheck> {
  const secrets = call.connection.secrets;
  const text = (value: string | null | undefined) =>
    value == null ? null : clip(cleanCiText(value, secrets).trim(), MAX_REPORT_CHARS);
  const report: CiCheck = {
    ...check,
    title: text(run.output?.title),
    summary: text(run.output?.summary),
    text: text(run.output?.text),
  };
  if ((run.output?.annotations_count ?? 0) === 0) return report;
  const annotations = await listAnnotations(call, run.id);
  if (!annotations.ok) return { ...report, note: `Annotations could not be read: ${errorNote(annotations.error)}` };
  const failures = annotations.value.filter((a) => a.annotation_level === "failure");
  return {
    ...report,
    annotations: failures.slice(0, MAX_ANNOTATIONS).map((a) => ({
      path: inline(cleanCiText(a.path, secrets), 300),
      line: a.start_line,
      title: a.title === null ? null : inline(cleanCiText(a.title, secrets), 300),
      message: clip(cleanCiText(a.message ?? "", secrets).trim(), 1000),
    })),
    ...(failures.length > MAX_ANNOTATIONS
      ? { note: `${count(failures.length - MAX_ANNOTATIONS)} more failure annotations not listed.` }
      : {}),
  };
}

function fromStatus(status: CommitStatus, call: GitHubCall): CiCheck {
  return {
    name: inline(status.context),
    id: null,
    source: "commit_status",
    status: status.state,
    conclusion: null,
    url: status.url,
    description:
      status.description === null ? null : inline(cleanCiText(status.description, call.connection.secrets), 1000),
  };
}

/** The check in one line: `name: 2 failed: test: message`, else its first error, report title or status. */
function headline(check: CiCheck): string {
  const first = (text: string | null | undefined) => inline((text ?? "").split("\n", 1)[0] ?? "", 300);
  const failures = check.failures ?? [];
  const [failure] = failures;
  if (failure !== undefined) {
    const failed = failures.length + (check.failures_omitted ?? 0);
    const more = failed > 1 ? ` (and ${count(failed - 1)} more)` : "";
    const message = failure.message === "" ? "" : `: ${first(failure.message)}`;
    return `${check.name}: ${count(failed)} failed: ${inline(failure.test, 300)}${message}${more}`;
  }
  const [error] = check.errors ?? [];
  const said =
    error !== undefined
      ? `${error.step}: ${first(error.message)}`
      : first(check.title ?? check.summary ?? check.description ?? check.note ?? "");
  const state = check.conclusion ?? check.status;
  return said === "" ? `${check.name}: ${state}` : `${check.name}: ${state}: ${said}`;
}

function errorNote(error: { message: string; hint?: string | undefined }): string {
  return error.hint === undefined ? error.message : `${error.message}. ${error.hint}`;
}

/** Over the budget, every step keeps its last n lines, each check n errors, annotations, n×100 report characters. */
function fitCiLog(answer: CiLog, budget: ReplyBudget): CiLog {
  const most = Math.max(
    0,
    ...answer.checks.flatMap((c) => [
      ...(c.log ?? []).map((step) => step.lines.length),
      c.failures?.length ?? 0,
      c.errors?.length ?? 0,
      c.annotations?.length ?? 0,
      Math.ceil(Math.max(c.summary?.length ?? 0, c.text?.length ?? 0) / 100),
    ]),
  );
  const build = (n: number): CiLog => {
    let left = 0;
    const checks = answer.checks.map((c) => {
      const cut: CiCheck = { ...c };
      if (c.log) {
        cut.log = c.log.map((step) => {
          const kept = step.lines.slice(Math.max(0, step.lines.length - n));
          left += step.lines.length - kept.length;
          return { ...step, earlier_lines: step.earlier_lines + step.lines.length - kept.length, lines: kept };
        });
      }
      if (c.failures && c.failures.length > n) {
        cut.failures = c.failures.slice(0, n);
        cut.failures_omitted = (c.failures_omitted ?? 0) + c.failures.length - n;
      }
      if (c.errors && c.errors.length > n) {
        cut.errors = c.errors.slice(0, n);
        cut.errors_omitted = (c.errors_omitted ?? 0) + c.errors.length - n;
      }
      if (c.annotations) cut.annotations = c.annotations.slice(0, n);
      if (c.summary) cut.summary = clip(c.summary, Math.max(1, n * 100));
      if (c.text) cut.text = clip(c.text, Math.max(1, n * 100));
      return cut;
    });
    return {
      ...answer,
      checks,
      truncated: true,
      omitted: { lines: left },
      hint: `Cut to fit the reply budget: each step keeps its last ${count(n)} lines, ${count(left)} left out; failures, errors, annotations and reports were shortened alike. Lower lines, or name one check.`,
    };
  };
  return largestFitting(budget, build, 0, most);
}
