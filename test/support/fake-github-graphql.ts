/**
 * The fake GitHub's GraphQL endpoint: queries run with the `graphql` package against GitHub's published schema
 * (`@octokit/graphql-schema`), so a field or argument GitHub lacks fails as it would there. Resolvers read the
 * repository's fixture threads and comments; errors carry GitHub's top-level `type` (NOT_FOUND, FORBIDDEN, …).
 */
import { dirname, join } from "node:path";
import type { GraphQLSchema } from "graphql";
import type { FakeRequest, FakeResponse, RepoData } from "./fake-github.ts";

export interface CommentFixture {
  author: string | null;
  body: string;
  createdAt?: string;
  diffHunk?: string;
}

export interface ThreadFixture {
  id?: string;
  path: string;
  line: number | null;
  startLine?: number | null;
  originalLine?: number | null;
  originalStartLine?: number | null;
  isResolved?: boolean;
  isOutdated?: boolean;
  resolvedBy?: string;
  diffSide?: "LEFT" | "RIGHT";
  comments: CommentFixture[];
}

let built: Promise<GraphQLSchema> | undefined;
/**
 * GitHub's schema, built once per process: about a second of CPU, during which the test process (and a client in it)
 * stands still, so files that ask GraphQL call this in `beforeAll`. The SDL is read as the file the package ships
 * (its index also loads a 6 MB JSON); it repeats two fields, so SDL checks are skipped.
 */
export function warmGitHubSchema(): Promise<GraphQLSchema> {
  built ??= import("graphql").then(async ({ buildSchema }) => {
    const index = Bun.fileURLToPath(import.meta.resolve("@octokit/graphql-schema"));
    const sdl = await Bun.file(join(dirname(index), "schema.graphql")).text();
    return buildSchema(sdl, { assumeValidSDL: true, noLocation: true });
  });
  return built;
}

class TypedError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const actor = (login: string | null | undefined) => (login ? { __typename: "User", login } : null);

/** A connection over `items` as GitHub pages it: `first`/`after` or `last`, opaque cursors. */
function connection<T>(items: readonly T[], args: { first?: number; after?: string; last?: number }) {
  if (args.first === undefined && args.last === undefined) {
    throw new TypedError("MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value.");
  }
  if ((args.first ?? args.last ?? 0) > 100) throw new TypedError("EXCESSIVE_PAGINATION", "Requesting more than 100.");
  const start = args.after ? Number(Buffer.from(args.after, "base64").toString().split(":")[1]) + 1 : 0;
  const end = args.first !== undefined ? start + args.first : items.length;
  const from = args.last !== undefined ? Math.max(start, end - args.last) : start;
  const nodes = items.slice(from, end);
  const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString("base64");
  return {
    totalCount: items.length,
    nodes,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: from > 0,
      startCursor: nodes.length > 0 ? cursor(from) : null,
      endCursor: nodes.length > 0 ? cursor(from + nodes.length - 1) : null,
    },
  };
}

function threadNode(thread: ThreadFixture, index: number, prUrl: string) {
  return {
    id: thread.id ?? `PRRT_${index}`,
    path: thread.path,
    line: thread.line,
    startLine: thread.startLine ?? null,
    originalLine: thread.originalLine ?? thread.line,
    originalStartLine: thread.originalStartLine ?? thread.startLine ?? null,
    isResolved: thread.isResolved ?? false,
    isOutdated: thread.isOutdated ?? false,
    isCollapsed: thread.isResolved ?? false,
    resolvedBy: actor(thread.isResolved ? (thread.resolvedBy ?? "octocat") : null),
    diffSide: thread.diffSide ?? "RIGHT",
    comments: (args: { first?: number; after?: string; last?: number }) =>
      connection(
        thread.comments.map((c, i) => ({
          author: actor(c.author),
          body: c.body,
          createdAt: c.createdAt ?? "2024-05-01T10:00:00Z",
          diffHunk: c.diffHunk ?? "@@ -1,3 +1,3 @@\n context\n-old\n+new",
          url: `${prUrl}#discussion_r${index * 100 + i}`,
        })),
        args,
      ),
  };
}

/** Answers `POST /graphql` (and GHES's `/api/graphql`) from `repo(owner, name)`'s data. */
export async function serveGraphql(
  request: FakeRequest & { body: unknown },
  repo: (owner: string, name: string) => RepoData | undefined,
): Promise<FakeResponse> {
  const { query, variables } = (request.body ?? {}) as { query?: string; variables?: Record<string, unknown> };
  if (typeof query !== "string") return { status: 400, body: { message: "Problems parsing JSON" } };
  const [schema, { graphql }] = await Promise.all([warmGitHubSchema(), import("graphql")]);
  const rootValue = {
    rateLimit: () => ({
      limit: 5000,
      cost: 1,
      remaining: 4999,
      resetAt: "2030-01-01T00:00:00Z",
      used: 1,
      nodeCount: 1,
    }),
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const data = repo(owner, name);
      if (!data)
        throw new TypedError("NOT_FOUND", `Could not resolve to a Repository with the name '${owner}/${name}'.`);
      return {
        pullRequest: ({ number }: { number: number }) => {
          const pr = data.pulls.get(number) as Record<string, unknown> | undefined;
          if (!pr)
            throw new TypedError("NOT_FOUND", `Could not resolve to a PullRequest with the number of ${number}.`);
          const url = String(pr.html_url);
          return {
            number,
            title: pr.title,
            url,
            state: pr.merged_at ? "MERGED" : String(pr.state).toUpperCase(),
            headRefOid: (pr.head as Record<string, unknown>).sha,
            comments: (args: { first?: number; last?: number }) =>
              connection(
                (data.issueComments.get(number) ?? []).map((c) => ({
                  author: actor(c.author),
                  body: c.body,
                  createdAt: c.createdAt ?? "2024-05-01T09:00:00Z",
                })),
                args,
              ),
            reviewThreads: (args: { first?: number; after?: string; last?: number }) =>
              connection(
                (data.reviewThreads.get(number) ?? []).map((t, i) => threadNode(t, i, url)),
                args,
              ),
          };
        },
      };
    },
  };
  const result = await graphql({ schema, source: query, rootValue, variableValues: variables ?? {} });
  const errors = result.errors?.map((e) => ({
    ...(e.originalError instanceof TypedError ? { type: e.originalError.type } : {}),
    path: e.path,
    locations: e.locations,
    message: e.message,
  }));
  // Like GitHub: a query that does not validate has no `data` at all.
  return { body: { ...(result.data === undefined ? {} : { data: result.data }), ...(errors ? { errors } : {}) } };
}
