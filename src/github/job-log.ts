/**
 * What get_ci_log reads of a check run: its Actions job and log, or another app's annotations. The log is
 * a redirect to a signed URL on another host: the token stays on the API, the signed URL gets no credential.
 */
import * as v from "valibot";
import type { Env } from "../core/context.ts";
import { cancelledError, toolError } from "../core/errors.ts";
import { decodedResponse, formatBytes, hostOf, httpClient, transportFailure } from "../core/http-policy.ts";
import { silentLogger } from "../core/log.ts";
import { clip, scrubControl } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readSettings } from "../core/settings.ts";
import { RequestAborted, untilCancelled } from "./http.ts";
import { JobLogFilter } from "./log-filter.ts";
import { type CheckRun, Text } from "./pr-status.ts";
import { type GitHubCall, githubErrorToToolError, githubGet, httpFailure } from "./request.ts";

/** Read at most this much of one log, for at most this long; past either, what was read is kept and the cut said. */
const MAX_LOG_BYTES = 512 * 1024 * 1024;
const LOG_DEADLINE_MS = 60_000;

const JobPayload = v.object({
  id: v.number(),
  name: v.string(),
  status: v.string(),
  conclusion: Text,
  steps: v.nullish(
    v.array(v.object({ name: v.string(), number: v.number(), status: v.string(), conclusion: Text })),
    [],
  ),
});
type Job = v.InferOutput<typeof JobPayload>;

export async function getJob(call: GitHubCall, jobId: number): Promise<Result<Job>> {
  const what = `Actions job ${jobId} in ${call.target.owner}/${call.target.repo}`;
  const route = "GET /repos/{owner}/{repo}/actions/jobs/{job_id}";
  const job = await githubGet(call, route, { job_id: jobId }, JobPayload, what);
  return job.ok ? ok(job.value.data) : job;
}

const AnnotationPayload = v.object({
  path: v.string(),
  start_line: v.nullish(v.number(), null),
  annotation_level: Text,
  title: Text,
  message: Text,
});

/** The Actions job behind a check run (its id), or `null` for another app's, whose details URL may look alike. */
export function actionsJobId(run: Pick<CheckRun, "id" | "app" | "details_url">): number | null {
  const slug = run.app?.slug ?? null;
  if (slug !== null && slug !== "github-actions") return null;
  const job = /\/actions\/runs\/\d+\/job\/(\d+)(?:[/?#]|$)/.exec(run.details_url ?? "")?.[1];
  if (job !== undefined && Number.isSafeInteger(Number(job))) return Number(job);
  return run.app?.slug === "github-actions" ? run.id : null;
}

/** A check run's first 100 annotations: a report with more failures than that is read on its page. */
export async function listAnnotations(call: GitHubCall, checkRunId: number) {
  const what = `annotations of check run ${checkRunId} in ${call.target.owner}/${call.target.repo}`;
  const route = "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations";
  const params = { check_run_id: checkRunId, per_page: 100 };
  const page = await githubGet(call, route, params, v.array(AnnotationPayload), what);
  return page.ok ? ok(page.value.data) : page;
}

type JobLog =
  /** `cut`: why the log's tail was not read, or `null`. */
  | { kind: "read"; log: ReturnType<JobLogFilter["end"]>; bytes: number; cut: string | null }
  /** GitHub no longer has the log (HTTP 410: past the repository's retention). */
  | { kind: "expired" }
  /** HTTP 404: not written yet (the job is running) or not visible to this token. */
  | { kind: "missing" };

/**
 * The job's log, filtered as it streams; each host waited for at most the timeout between two chunks, and the
 * whole read for at most `deadlineMs` (a log that trickles in is cut there, not waited for).
 */
export async function readJobLog(
  call: GitHubCall,
  request: { jobId: number; steps: Job["steps"]; lines: number; fetch: typeof fetch; env: Env; deadlineMs?: number },
): Promise<Result<JobLog>> {
  const { connection, target } = call;
  const timeoutMs = readSettings(request.env).httpTimeoutMs;
  const idle = new AbortController();
  const timer = setTimeout(() => idle.abort(new RequestAborted("timeout", timeoutMs)), timeoutMs);
  const deadlineMs = request.deadlineMs ?? LOG_DEADLINE_MS;
  const late = AbortSignal.timeout(deadlineMs);
  const signal = AbortSignal.any([call.signal, late]);
  let refresh: () => void = () => timer.refresh();
  let timedOut = () => idle.signal.aborted;
  const what = `the log of Actions job ${request.jobId} in ${target.owner}/${target.repo}`;
  let where = hostOf(connection.baseUrl, "the log host");
  try {
    // With the token, and no redirect followed: the answer is where the log is (or, from some servers, the log).
    const sent = connection.octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
      owner: target.owner,
      repo: target.repo,
      job_id: request.jobId,
      request: {
        signal: AbortSignal.any([signal, idle.signal]),
        redirect: "manual",
        parseSuccessResponseBody: false,
      },
    });
    const raw = await untilCancelled(sent, signal).catch((error: unknown) => ({ error }));
    if ("error" in raw) {
      if ((timedOut() || late.aborted) && !call.signal.aborted) throw raw.error;
      const status = httpFailure(raw.error)?.status;
      if (status === 410) return ok({ kind: "expired" });
      if (status === 404) return ok({ kind: "missing" });
      return err(githubErrorToToolError(raw.error, call, { what }));
    }
    const body = raw.data instanceof ReadableStream ? raw.data : null;
    let response = new Response(body, { headers: raw.headers as Record<string, string> });
    let sender = "GitHub";
    if (raw.status >= 300) {
      await body?.cancel().catch(() => {});
      const url = raw.headers.location === undefined ? null : URL.parse(raw.headers.location, connection.baseUrl);
      if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
        return err(toolError("network_error", `GitHub answered the request for ${what} without a usable log address`));
      }
      where = url.host;
      sender = `The log host ${where}`;
      clearTimeout(timer);
      // A signed URL: no credential of any kind goes there, so its redirects may be followed.
      const log = call.log ?? silentLogger;
      const http = httpClient({ fetch: request.fetch, log, now: call.now, timeoutMs });
      const stored = await http(url.href, { signal, redirect: "follow" });
      timedOut = () => (stored.kind === "response" ? stored.stopped() : stored.kind) === "timeout";
      if (stored.kind !== "response") throw stored.cause;
      ({ response, refresh } = stored);
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        const hint = "The signed log address lasts a minute; call get_ci_log again.";
        return err(toolError("network_error", `${sender} answered HTTP ${response.status}`, hint));
      }
    }
    const decoded = decodedResponse(response);
    if (decoded.body === null && response.body !== null) {
      // An unknown encoding is refused: read as is, garbage; left out, an empty log.
      await response.body.cancel().catch(() => {});
      const encoding = clip(scrubControl(response.headers.get("content-encoding") ?? ""), 40);
      return err(toolError("network_error", `${sender} sent the log as ${encoding}, an encoding not known here`));
    }
    const filter = new JobLogFilter({ lines: request.lines, jobSteps: request.steps, secrets: connection.secrets });
    // Streamed, never held whole (logs of 100 MB exist), and cut at MAX_LOG_BYTES or the deadline.
    const decoder = new TextDecoder();
    let bytes = 0;
    let cut: string | null = null;
    try {
      for await (const chunk of decoded.body ?? []) {
        refresh();
        if (bytes + chunk.byteLength > MAX_LOG_BYTES) {
          cut = `Only the first ${formatBytes(MAX_LOG_BYTES)} of the log were read.`;
          break;
        }
        bytes += chunk.byteLength;
        filter.push(decoder.decode(chunk, { stream: true }));
        if (late.aborted) break;
      }
    } catch (error) {
      if (!late.aborted || call.signal.aborted) throw error;
    }
    if (late.aborted && cut === null) cut = `Only what came within ${deadlineMs / 1000} s was read; the rest was not.`;
    filter.push(decoder.decode());
    return ok({ kind: "read", log: filter.end(), bytes, cut });
  } catch (error) {
    if (call.signal.aborted) return err(cancelledError(`Request for ${what}`));
    if (late.aborted) {
      const hint = "Try again later, or read the log on the check's page.";
      return err(toolError("network_error", `${where} did not send ${what} within ${deadlineMs / 1000} s`, hint));
    }
    if (!timedOut()) {
      return err(toolError("network_error", `Could not read ${what} from ${where}: ${transportFailure(error).detail}`));
    }
    const hint = "Try again; set TWIG_MCP_HTTP_TIMEOUT_MS to wait longer.";
    return err(toolError("network_error", `${where} sent nothing for ${timeoutMs} ms while sending ${what}`, hint));
  } finally {
    clearTimeout(timer);
  }
}
