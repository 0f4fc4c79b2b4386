/** A commit's checks as get_ci_log reads them: check runs with their ids, apps and reports, and commit statuses. */
import * as v from "valibot";
import { ok, type Result } from "../core/result.ts";
import { fetchPages } from "./pagination.ts";
import { type GitHubCall, githubGet } from "./request.ts";

const Text = v.nullish(v.string(), null);

const CheckRunPayload = v.object({
  id: v.number(),
  name: v.string(),
  status: v.string(),
  conclusion: Text,
  html_url: Text,
  details_url: Text,
  app: v.nullish(v.object({ slug: Text }), null),
  output: v.nullish(
    v.object({ title: Text, summary: Text, text: Text, annotations_count: v.nullish(v.number(), 0) }),
    null,
  ),
});
export type CheckRun = v.InferOutput<typeof CheckRunPayload>;

const CommitStatusPayload = v.object({ context: v.string(), state: v.string(), description: Text, target_url: Text });
export type CommitStatus = v.InferOutput<typeof CommitStatusPayload>;

const AnnotationPayload = v.object({
  path: v.string(),
  start_line: v.nullish(v.number(), null),
  end_line: v.nullish(v.number(), null),
  annotation_level: Text,
  title: Text,
  message: Text,
});
export type Annotation = v.InferOutput<typeof AnnotationPayload>;

const EVERY_PAGE = { perPage: 100, maxItems: 1000 };

/** Every check run and commit status of a commit, both lists asked at once. */
export async function listCommitChecks(
  call: GitHubCall,
  sha: string,
): Promise<Result<{ runs: CheckRun[]; statuses: CommitStatus[] }>> {
  const of = `of commit ${sha.slice(0, 12)} in ${call.target.owner}/${call.target.repo}`;
  const [runs, statuses] = await Promise.all([
    fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      params: { ref: sha },
      schema: v.object({ check_runs: v.array(CheckRunPayload) }),
      items: (data) => data.check_runs,
      what: `check runs ${of}`,
    }),
    fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/status",
      params: { ref: sha },
      schema: v.object({ statuses: v.array(CommitStatusPayload) }),
      items: (data) => data.statuses,
      what: `commit statuses ${of}`,
    }),
  ]);
  if (!runs.ok) return runs;
  if (!statuses.ok) return statuses;
  return ok({ runs: runs.value.items, statuses: statuses.value.items });
}

/**
 * The Actions job behind a check run, or `null` for another app's. A GitHub Actions check run's id
 * is its job's id; its details page is `…/actions/runs/<run>/job/<job>`.
 */
export function actionsJobId(run: Pick<CheckRun, "id" | "app" | "details_url">): number | null {
  const job = /\/actions\/runs\/\d+\/job\/(\d+)(?:[/?#]|$)/.exec(run.details_url ?? "")?.[1];
  if (job !== undefined && Number.isSafeInteger(Number(job))) return Number(job);
  return run.app?.slug === "github-actions" ? run.id : null;
}

/** A check run's first 100 annotations: a report with more failures than that is read on its page. */
export async function listAnnotations(call: GitHubCall, checkRunId: number): Promise<Result<Annotation[]>> {
  const what = `annotations of check run ${checkRunId} in ${call.target.owner}/${call.target.repo}`;
  const route = "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations";
  const page = await githubGet(
    call,
    route,
    { check_run_id: checkRunId, per_page: 100 },
    v.array(AnnotationPayload),
    what,
  );
  return page.ok ? ok(page.value.data) : page;
}
