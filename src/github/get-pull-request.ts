import { ok, type Result } from "../core/result.ts";
import { BODY_LIMIT_SINGLE, type PullRequest, PullRequestPayload, toPullRequest } from "./pull-request.ts";
import { type GitHubCall, githubGet } from "./request.ts";

/** One PR, a single GET. */
export async function getPullRequest(call: GitHubCall, number: number): Promise<Result<PullRequest>> {
  const { owner, repo } = call.target;
  const response = await githubGet(
    call,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    { pull_number: number },
    PullRequestPayload,
    `pull request #${number} in ${owner}/${repo}`,
  );
  if (!response.ok) return response;
  return ok(toPullRequest(response.value.data, owner, BODY_LIMIT_SINGLE));
}
