/** What get_ci_log reads of a check run beyond the listing (pr-status.ts): its Actions job, its annotations. */
import * as v from "valibot";
import { ok, type Result } from "../core/result.ts";
import type { CheckRun } from "./pr-status.ts";
import { type GitHubCall, githubGet } from "./request.ts";

const Text = v.nullish(v.string(), null);

const AnnotationPayload = v.object({
  path: v.string(),
  start_line: v.nullish(v.number(), null),
  end_line: v.nullish(v.number(), null),
  annotation_level: Text,
  title: Text,
  message: Text,
});
export type Annotation = v.InferOutput<typeof AnnotationPayload>;

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
