import { toolError } from "../core/errors.ts";
import { escapeInvisibles, plainText } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { getBranchContextTool } from "../tools/branch-context.ts";
import type { ToolInvoker } from "../tools/define.ts";
import { getBranchTreeTool, listBranchesTool } from "../tools/local.ts";
import type { TwigResource } from "./uri.ts";

interface ResourceText {
  mimeType: "text/plain" | "application/json";
  text: string;
}

/** Reads one resource through the tools, so a resource always says what the tool would. */
export async function readTwigResource(resource: TwigResource, invoke: ToolInvoker): Promise<Result<ResourceText>> {
  const repo = resource.repo === undefined ? {} : { repo: resource.repo };
  switch (resource.kind) {
    case "tree": {
      const tree = required(await invoke(getBranchTreeTool, repo));
      return tree.ok ? ok({ mimeType: "text/plain", text: plainText(tree.value.tree_text) }) : tree;
    }
    case "branches": {
      const branches = required(await invoke(listBranchesTool, repo));
      return branches.ok ? ok(json(branches.value)) : branches;
    }
    case "context": {
      const context = required(await invoke(getBranchContextTool, { ...repo, branch: resource.branch }));
      return context.ok ? ok(json(context.value)) : context;
    }
  }
}

function required<T>(result: Result<T> | null): Result<T> {
  return result ?? err(toolError("internal", "the tool behind this resource is disabled"));
}

function json(value: unknown): ResourceText {
  // A client may show this text as it is: bidi and invisible characters go as `\uXXXX` escapes.
  return { mimeType: "application/json", text: escapeInvisibles(JSON.stringify(value, null, 2)) };
}
