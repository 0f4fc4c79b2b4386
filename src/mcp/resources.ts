import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ToolError, toolError } from "../core/errors.ts";
import { escapeInvisibles, plainText, printable } from "../core/plain-text.ts";
import type { Result } from "../core/result.ts";
import { discoverRepository } from "../git/discover.ts";
import { checkBranchName } from "../git/refname.ts";
import { getBranchContextTool } from "../tools/get-branch-context.ts";
import { getBranchTreeTool } from "../tools/get-branch-tree.ts";
import { listBranchesTool } from "../tools/list-branches.ts";
import type { ServiceContext } from "../tools/shared/context.ts";
import { contextForRepo } from "./prompts.ts";
import { RepoWatcher } from "./resource-watch.ts";
import { RESOURCE_NOT_FOUND } from "./stateless.ts";
import type { ToolRegistry } from "./tool-registry.ts";

const TREE_URI = "twig://repo/tree";
const BRANCHES_URI = "twig://repo/branches";
export const BRANCH_CONTEXT_TEMPLATE = "twig://branch/{name}/context";

type TwigResource =
  | { kind: "tree"; repo?: string }
  | { kind: "branches"; repo?: string }
  | { kind: "context"; branch: string; repo?: string };

const STATIC_RESOURCES = [
  {
    uri: TREE_URI,
    name: "tree",
    title: "Branch dependency tree",
    description: "The repository's twig branch trees as text (append ?repo=NAME for another repository).",
    mimeType: "text/plain",
  },
  {
    uri: BRANCHES_URI,
    name: "branches",
    title: "Tracked branches",
    description: "Every twig-tracked branch with its Jira issue, PR and parent, as JSON.",
    mimeType: "application/json",
  },
];

const TEMPLATES = [
  {
    uriTemplate: BRANCH_CONTEXT_TEMPLATE,
    name: "branch-context",
    title: "Branch context",
    description:
      "One branch's twig metadata and stack with its PR and Jira status summarised, as JSON (get_branch_context's reply). Live parts that fail are reported inside.",
    mimeType: "application/json",
  },
];

/** Resource reads, templates and subscriptions; returns a function that releases every watcher. */
export function registerResources(server: Server, ctx: ServiceContext, tools: ToolRegistry): () => void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: STATIC_RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: TEMPLATES }));

  // Read through the tools, so a resource always says what the tool would.
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }, extra) => {
    const resource = parseOrThrow(uri);
    const invoke = tools.invoker(ctx, extra.signal);
    const repo = resource.repo === undefined ? {} : { repo: resource.repo };
    if (resource.kind === "tree") {
      const tree = required(await invoke(getBranchTreeTool, repo));
      return { contents: [{ uri, mimeType: "text/plain", text: plainText(tree.tree_text) }] };
    }
    const doc = required<unknown>(
      resource.kind === "branches"
        ? await invoke(listBranchesTool, repo)
        : await invoke(getBranchContextTool, { ...repo, branch: resource.branch }),
    );
    // A client may show this text as it is: bidi and invisible characters go as `\uXXXX` escapes.
    const text = escapeInvisibles(JSON.stringify(doc, null, 2));
    return { contents: [{ uri, mimeType: "application/json", text }] };
  });

  /** One watcher per work tree, with the URIs subscribed in it and their kinds. */
  const watched = new Map<string, { watcher: RepoWatcher; uris: Map<string, TwigResource["kind"]> }>();
  const unsubscribe = (uri: string) => {
    for (const [workTree, { watcher, uris }] of watched) {
      if (!uris.delete(uri) || uris.size > 0) continue;
      watcher.close();
      watched.delete(workTree);
    }
  };
  server.setRequestHandler(SubscribeRequestSchema, async ({ params: { uri } }) => {
    const resource = parseOrThrow(uri);
    const { repo } = await contextForRepo(ctx, resource.repo);
    if (!repo.ok) throw resourceError(repo.error);
    unsubscribe(uri);
    let entry = watched.get(repo.value);
    if (!entry) {
      const location = await discoverRepository(repo.value, ctx.files);
      if (!location.ok) throw resourceError(location.error);
      const uris = new Map<string, TwigResource["kind"]>();
      const report = (error: unknown) => ctx.log.debug(`resources/updated: ${error}`);
      const changed = (kinds: ReadonlySet<string>) => {
        // The tree shows git branches and HEAD too, so any change can affect it.
        for (const [subscribed, kind] of uris) {
          if (kinds.has("state") || kind === "tree") server.sendResourceUpdated({ uri: subscribed }).catch(report);
        }
      };
      // A subscribe that arrived during discovery may have made the watcher: a second would never close.
      entry = watched.get(repo.value) ?? {
        watcher: new RepoWatcher(location.value, repo.value, changed, (m) => ctx.log.warn(m)),
        uris,
      };
      watched.set(repo.value, entry);
    }
    entry.uris.set(uri, resource.kind);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async ({ params: { uri } }) => {
    unsubscribe(uri);
    return {};
  });
  return () => {
    for (const { watcher } of watched.values()) watcher.close();
    watched.clear();
  };
}

/** Parses our URIs (optional `?repo=`; a branch percent-encoded or raw); `null` if not ours or invalid. */
export function parseTwigUri(uri: string): TwigResource | null {
  const url = URL.parse(uri);
  if (url?.protocol !== "twig:") return null;
  const repoParam = url.searchParams.get("repo");
  const repo = repoParam === null || repoParam === "" ? {} : { repo: repoParam };
  if (url.host === "repo" && url.pathname === "/tree") return { kind: "tree", ...repo };
  if (url.host === "repo" && url.pathname === "/branches") return { kind: "branches", ...repo };
  // `/<name>/context`, matched by its ends: no pattern to backtrack over a long hostile URI.
  const path = url.pathname;
  const suffix = "/context";
  if (url.host !== "branch" || !path.startsWith("/") || !path.endsWith(suffix)) return null;
  try {
    const branch = decodeURIComponent(path.slice(1, -suffix.length));
    return checkBranchName(branch) === null ? { kind: "context", branch, ...repo } : null;
  } catch {
    return null;
  }
}

function parseOrThrow(uri: string): TwigResource {
  const resource = parseTwigUri(uri);
  if (resource) return resource;
  // Echoed clipped: a 100,000-character URI would make a 200,000-character error.
  throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${printable(uri)}`, {
    uri: printable(uri),
    hint: `Use ${TREE_URI}, ${BRANCHES_URI} or ${BRANCH_CONTEXT_TEMPLATE} (each takes ?repo=NAME).`,
  });
}

/** The answer of the tool behind a resource, or the error to send instead. */
function required<T>(result: Result<T> | null): T {
  if (result === null) throw resourceError(toolError("internal", "the tool behind this resource is disabled"));
  if (!result.ok) throw resourceError(result.error);
  return result.value;
}

const ERROR_CODES: Partial<Record<ToolError["code"], number>> = {
  invalid_params: ErrorCode.InvalidParams,
  not_found: RESOURCE_NOT_FOUND,
};

function resourceError({ code, message, hint }: ToolError): McpError {
  return new McpError(ERROR_CODES[code] ?? ErrorCode.InternalError, message, { code, hint });
}
