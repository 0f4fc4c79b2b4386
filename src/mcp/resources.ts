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
import type { ToolError } from "../core/errors.ts";
import { discoverRepository } from "../git/discover.ts";
import { readTwigResource } from "../resources/read.ts";
import { BRANCH_CONTEXT_TEMPLATE, BRANCHES_URI, parseTwigUri, TREE_URI, type TwigResource } from "../resources/uri.ts";
import { RepoWatcher } from "../resources/watch.ts";
import type { ServiceContext } from "../services/services.ts";
import { contextForRepo } from "./prompts.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

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

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const result = await readTwigResource(parseOrThrow(uri), tools.invoker(ctx, extra.signal));
    if (!result.ok) throw resourceError(result.error);
    return { contents: [{ uri, ...result.value }] };
  });

  /** One watcher per work tree, with the URIs subscribed in it. */
  const watched = new Map<string, { watcher: RepoWatcher; uris: Map<string, TwigResource> }>();
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
      const uris = new Map<string, TwigResource>();
      const changed = (kinds: ReadonlySet<string>) => {
        // The tree shows git branches and HEAD too, so any change can affect it.
        for (const [subscribed, { kind }] of uris) {
          if (!kinds.has("state") && kind !== "tree") continue;
          server
            .sendResourceUpdated({ uri: subscribed })
            .catch((error) => ctx.log.debug(`resources/updated: ${error}`));
        }
      };
      // A subscribe that arrived during discovery may have made the watcher: a second would never close.
      entry = watched.get(repo.value) ?? {
        watcher: new RepoWatcher(location.value, repo.value, changed, (m) => ctx.log.warn(m)),
        uris,
      };
      watched.set(repo.value, entry);
    }
    entry.uris.set(uri, resource);
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

function parseOrThrow(uri: string): TwigResource {
  const resource = parseTwigUri(uri);
  if (!resource) {
    throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, {
      uri,
      hint: `Use ${TREE_URI}, ${BRANCHES_URI} or ${BRANCH_CONTEXT_TEMPLATE} (each takes ?repo=NAME).`,
    });
  }
  return resource;
}

const ERROR_CODES: Partial<Record<ToolError["code"], number>> = {
  invalid_params: ErrorCode.InvalidParams,
  not_found: RESOURCE_NOT_FOUND,
};

function resourceError(error: ToolError): McpError {
  return new McpError(ERROR_CODES[error.code] ?? ErrorCode.InternalError, error.message, {
    code: error.code,
    hint: error.hint,
  });
}
