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
    const resource = parseOrThrow(uri);
    const result = await readTwigResource(resource, tools.invoker(ctx, extra.signal));
    if (!result.ok) throw resourceError(result.error);
    return { contents: [{ uri, ...result.value }] };
  });

  const subscriptions = new SubscriptionSet(ctx, (uri) => {
    server.sendResourceUpdated({ uri }).catch((error) => ctx.log.debug(`resources/updated: ${error}`));
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await subscriptions.add(request.params.uri, parseOrThrow(request.params.uri));
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.remove(request.params.uri);
    return {};
  });
  return () => subscriptions.clear();
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

function resourceError(error: ToolError): McpError {
  const code =
    error.code === "invalid_params"
      ? ErrorCode.InvalidParams
      : error.code === "not_found"
        ? RESOURCE_NOT_FOUND
        : ErrorCode.InternalError;
  return new McpError(code, error.message, { code: error.code, hint: error.hint });
}

interface WatchedRepo {
  watcher: RepoWatcher;
  uris: Map<string, TwigResource>;
}

class SubscriptionSet {
  readonly #repos = new Map<string, WatchedRepo>();
  readonly #repoOfUri = new Map<string, string>();

  constructor(
    readonly ctx: ServiceContext,
    readonly notify: (uri: string) => void,
  ) {}

  async add(uri: string, resource: TwigResource): Promise<void> {
    const repoCtx = await contextForRepo(this.ctx, resource.repo);
    if (!repoCtx.repo.ok) throw resourceError(repoCtx.repo.error);
    const workTree = repoCtx.repo.value;
    this.remove(uri);
    let watched = this.#repos.get(workTree);
    if (!watched) {
      const location = await discoverRepository(workTree, this.ctx.files);
      if (!location.ok) throw resourceError(location.error);
      const uris = new Map<string, TwigResource>();
      const watcher = new RepoWatcher(
        location.value,
        workTree,
        (kinds) => {
          // The tree shows git branches and HEAD too, so any change can affect it.
          for (const [subscribed, res] of uris) if (kinds.has("state") || res.kind === "tree") this.notify(subscribed);
        },
        (message) => this.ctx.log.warn(message),
      );
      watched = { watcher, uris };
      this.#repos.set(workTree, watched);
    }
    watched.uris.set(uri, resource);
    this.#repoOfUri.set(uri, workTree);
  }

  remove(uri: string): void {
    const workTree = this.#repoOfUri.get(uri);
    if (workTree === undefined) return;
    this.#repoOfUri.delete(uri);
    const watched = this.#repos.get(workTree);
    if (!watched) return;
    watched.uris.delete(uri);
    if (watched.uris.size === 0) {
      watched.watcher.close();
      this.#repos.delete(workTree);
    }
  }

  clear(): void {
    for (const watched of this.#repos.values()) watched.watcher.close();
    this.#repos.clear();
    this.#repoOfUri.clear();
  }
}
