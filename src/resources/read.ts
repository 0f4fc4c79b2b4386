import { toolError } from "../core/errors.ts";
import { escapeInvisibles, plainText } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { getBranchContextTool } from "../tools/branch-context.ts";
import type { ToolInvoker } from "../tools/define.ts";
import { getBranchTreeTool } from "../tools/get-branch-tree.ts";
import { listBranchesTool } from "../tools/list-branches.ts";
import type { TwigResource } from "./uri.ts";

interface ResourceText {
  mimeType: "text/plain" | "application/json";
  text: string;
}

/** Reads one resource through the tools, so a resource always says what the tool would. */
export async function readTwigResource(resource: TwigResource, invoke: ToolInvoker): Promise<Result<ResourceText>> {
  const repo = resource.repo === undefined ? {} : { repo: resource.repo };
  if (resource.kind === "tree") {
    const tree = required(await invoke(getBranchTreeTool, repo));
    return tree.ok ? ok({ mimeType: "text/plain", text: plainText(tree.value.tree_text) }) : tree;
  }
  const doc = required<unknown>(
    resource.kind === "branches"
      ? await invoke(listBranchesTool, repo)
      : await invoke(getBranchContextTool, { ...repo, branch: resource.branch }),
  );
  // A client may show this text as it is: bidi and invisible characters go as `\uXXXX` escapes.
  return doc.ok
    ? ok({ mimeType: "application/json", text: escapeInvisibles(JSON.stringify(doc.value, null, 2)) })
    : doc;
}

function required<T>(result: Result<T> | null): Result<T> {
  return result ?? err(toolError("internal", "the tool behind this resource is disabled"));
}
