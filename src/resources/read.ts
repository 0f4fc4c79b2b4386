import type { ToolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ToolInvoker } from "../prompts/live-status.ts";
import type { TwigResource } from "./uri.ts";

export interface ResourceText {
  mimeType: "text/plain" | "application/json";
  text: string;
}

/** A live part of the branch context: its data, why it failed, or that the service is not set up. */
type LivePart =
  | { status: "ok"; data: Record<string, unknown> }
  | { status: "not_configured"; error: ToolError }
  | { status: "error"; error: ToolError };

/** Reads one resource through the tools, so a resource always says what the tool would. */
export async function readTwigResource(resource: TwigResource, invoke: ToolInvoker): Promise<Result<ResourceText>> {
  const repo: Record<string, string> = resource.repo === undefined ? {} : { repo: resource.repo };
  switch (resource.kind) {
    case "tree": {
      const tree = await required(invoke("get_branch_tree", repo));
      return tree.ok ? ok({ mimeType: "text/plain", text: tree.value.tree_text as string }) : tree;
    }
    case "branches": {
      const branches = await required(invoke("list_branches", repo));
      return branches.ok ? ok(json(branches.value)) : branches;
    }
    case "context":
      return branchContext(resource.branch, repo, invoke);
  }
}

/**
 * Branch metadata, its stack, and the linked Jira issue and PR status fetched concurrently; a
 * failed live part is reported inside the document instead of failing the read.
 */
async function branchContext(
  branch: string,
  repo: Record<string, string>,
  invoke: ToolInvoker,
): Promise<Result<ResourceText>> {
  const stack = await required(invoke("get_branch_stack", { ...repo, branch }));
  if (!stack.ok) return stack;
  const records = stack.value.stack as Array<{ jira_issue?: string; pr_number?: number }>;
  const record = records[0] ?? {};
  const [jira, pr] = await Promise.all([
    record.jira_issue === undefined ? null : live(invoke("get_jira_issue", { ...repo, issue_key: record.jira_issue })),
    record.pr_number === undefined ? null : live(invoke("get_pr_status", { ...repo, pr_number: record.pr_number })),
  ]);
  const document: Record<string, unknown> = { branch: record, stack: stack.value.stack };
  if (stack.value.cycle) document.cycle = true;
  if (jira) document.jira_issue = jira;
  if (pr) document.pull_request = pr;
  return ok(json(document));
}

async function required(pending: ReturnType<ToolInvoker>): Promise<Result<Record<string, unknown>>> {
  const result = await pending;
  return result ?? err({ code: "internal", message: "the tool behind this resource is disabled" });
}

async function live(pending: ReturnType<ToolInvoker>): Promise<LivePart | null> {
  const result = await pending;
  if (result === null) return null;
  if (result.ok) return { status: "ok", data: result.value };
  return result.error.code === "credentials_missing"
    ? { status: "not_configured", error: result.error }
    : { status: "error", error: result.error };
}

function json(value: unknown): ResourceText {
  return { mimeType: "application/json", text: JSON.stringify(value, null, 2) };
}
