/** A PR's review threads, with resolution, from GitHub's GraphQL API (REST has no `isResolved`). */
import * as v from "valibot";
import { toolError } from "../core/errors.ts";
import { clip, inline, plainText, quoted, trimChars } from "../core/plain-text.ts";
import { err, ok } from "../core/result.ts";
import { githubGraphql } from "./graphql.ts";
import { followCursors, type GitHubCall } from "./request.ts";

/** Threads per request, comments per thread, and the most threads one call reads (bounded work per call). */
const THREADS_PER_REQUEST = 100;
const COMMENTS_PER_THREAD = 30;
const MAX_THREADS = 1000;
/** How much of a comment body a thread carries, and the commented code's lines and their width. */
const BODY_CHARS = 1500;
const CODE_LINES = 8;
const CODE_LINE_CHARS = 200;

const QUERY = `query($owner: String!, $name: String!, $number: Int!, $after: String, $first: Boolean!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      title url state headRefOid
      comments(last: 10) @include(if: $first) { totalCount nodes { author { login } body createdAt } }
      reviewThreads(first: ${THREADS_PER_REQUEST}, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated resolvedBy { login } path line startLine originalLine originalStartLine diffSide
          comments(first: ${COMMENTS_PER_THREAD}) { totalCount nodes { author { login } body createdAt diffHunk url } }
        }
      }
    }
  }
}`;

const Int = v.nullable(v.number());
const Author = v.pipe(
  v.nullable(v.object({ login: v.string() })),
  v.transform((author) => author?.login ?? "ghost"),
);
const CommentNode = v.object({ author: Author, body: v.string(), createdAt: v.string() });
const ThreadNode = v.object({
  id: v.string(),
  isResolved: v.boolean(),
  isOutdated: v.boolean(),
  resolvedBy: Author,
  path: v.string(),
  line: Int,
  startLine: Int,
  originalLine: Int,
  originalStartLine: Int,
  diffSide: v.string(),
  comments: v.object({
    totalCount: v.number(),
    nodes: v.array(v.object({ ...CommentNode.entries, diffHunk: v.string(), url: v.string() })),
  }),
});
type ThreadNode = v.InferOutput<typeof ThreadNode>;
const Response = v.object({
  repository: v.nullable(
    v.object({
      pullRequest: v.nullable(
        v.object({
          title: v.string(),
          url: v.string(),
          state: v.string(),
          headRefOid: v.string(),
          comments: v.optional(v.object({ totalCount: v.number(), nodes: v.array(CommentNode) })),
          reviewThreads: v.object({
            totalCount: v.number(),
            pageInfo: v.object({ hasNextPage: v.boolean(), endCursor: v.nullable(v.string()) }),
            nodes: v.array(ThreadNode),
          }),
        }),
      ),
    }),
  ),
});

type PullRequest = NonNullable<NonNullable<v.InferOutput<typeof Response>["repository"]>["pullRequest"]>;
export type ReviewThread = ReturnType<typeof toThread>;

/** Every thread of PR `number` (up to {@link MAX_THREADS}), in file order, and its latest conversation comments. */
export async function getReviewThreads(call: GitHubCall, number: number) {
  const { owner, repo } = call.target;
  const what = `review threads of pull request #${number} in ${owner}/${repo}`;
  let pr: PullRequest | undefined;
  // GitHub pages threads by cursor only, so pages follow one another.
  const read = await followCursors(call, Math.ceil(MAX_THREADS / THREADS_PER_REQUEST), async (paged, after) => {
    const variables = { owner, name: repo, number, after, first: after === null };
    const page = await githubGraphql(paged, QUERY, variables, Response, what);
    if (!page.ok) return page;
    const found = page.value.repository?.pullRequest;
    if (!found) return notFound(call, number);
    pr ??= found;
    const { hasNextPage, endCursor } = found.reviewThreads.pageInfo;
    return ok({ items: found.reviewThreads.nodes, next: hasNextPage ? endCursor : null });
  });
  if (!read.ok) return read;
  if (!pr) return notFound(call, number);
  const { items: nodes, stopped } = read.value;
  const threads = nodes.slice(0, MAX_THREADS).map(toThread).sort(compareThreads);
  return ok({
    pull_request: {
      number,
      title: inline(pr.title, 200),
      state: pr.state.toLowerCase(),
      url: pr.url,
      head_sha: pr.headRefOid,
    },
    total: pr.reviewThreads.totalCount,
    /** Why threads were left unread (`null`: none were). */
    unread:
      stopped === null && nodes.length <= MAX_THREADS ? null : (stopped ?? `only the first ${MAX_THREADS} are read`),
    threads,
    conversation: (pr.comments?.nodes ?? []).map((c) => ({
      author: inline(c.author, 80),
      created_at: c.createdAt,
      excerpt: inline(c.body.replace(/\s+/g, " ").trim(), 300),
    })),
  });
}

function notFound(call: GitHubCall, number: number) {
  const { owner, repo } = call.target;
  return err(
    toolError(
      "not_found",
      `GitHub's GraphQL API found no pull request #${number} in ${owner}/${repo}`,
      `Check the number and ${owner}/${repo}; private repositories look missing to a token that cannot see them.`,
    ),
  );
}

/** One thread as a reply shows it; `key` orders threads and places a cursor. */
function toThread(node: ThreadNode) {
  const line = node.line ?? node.originalLine;
  const start = node.line === null ? node.originalStartLine : node.startLine;
  const range = { start_line: start ?? line, end_line: line };
  const comments = node.comments.nodes.map((c) => {
    const suggestion = suggestionOf(c.body);
    return {
      author: inline(c.author, 80),
      body: clip(plainText(c.body), BODY_CHARS),
      created_at: c.createdAt,
      ...(suggestion && line !== null ? { suggestion: { ...range, lines: suggestion } } : {}),
    };
  });
  const hunk = node.comments.nodes[0]?.diffHunk ?? "";
  return {
    key: [node.path, line ?? 0, node.id] as const,
    path: plainText(node.path),
    line,
    ...(start !== null && start !== line ? { start_line: start } : {}),
    side: node.diffSide,
    outdated: node.isOutdated,
    resolved: node.isResolved,
    ...(node.isResolved ? { resolved_by: inline(node.resolvedBy, 80) } : {}),
    code: commentedCode(hunk),
    comments,
    ...(node.comments.totalCount > comments.length
      ? { more_comments: node.comments.totalCount - comments.length }
      : {}),
    url: node.comments.nodes[0]?.url ?? null,
  };
}

/** By path (bytewise), line, then GitHub's id: a total order, so a cursor places every thread once. */
export function compareKeys(a: readonly [string, number, string], b: readonly [string, number, string]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as string | number) < (b[i] as string | number) ? -1 : 1;
  return 0;
}
const compareThreads = (a: ReviewThread, b: ReviewThread) => compareKeys(a.key, b.key);

/** The hunk's last lines (its `@@` header left out): GitHub's hunk ends at the commented line. */
function commentedCode(hunk: string): string[] {
  const lines = hunk.split("\n").filter((line) => !line.startsWith("@@"));
  return lines.slice(-CODE_LINES).map((line) => clip(plainText(line), CODE_LINE_CHARS));
}

/**
 * The replacement lines of a comment's first ```suggestion block, or null. Lines are scanned once, as
 * Markdown reads fences: a fence inside another block opens nothing; the block ends at a line of its
 * fence's character at least as long.
 */
export function suggestionOf(body: string): string[] | null {
  const lines = body.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  let open: { fence: string; suggestion: boolean; from: number } | null = null;
  for (const [i, line] of lines.entries()) {
    const bare = trimChars(line, " \t", true);
    if (open === null) {
      const start = /^(`{3,}|~{3,})[ \t]*(\S*)/.exec(bare);
      if (start)
        open = { fence: start[1] as string, suggestion: (start[2] as string).startsWith("suggestion"), from: i + 1 };
    } else if (bare.length >= open.fence.length && /^(?:`+|~+)$/.test(bare) && bare[0] === open.fence[0]) {
      if (!open.suggestion) open = null;
      else {
        const text = lines.slice(open.from, i).join("\n");
        return text === "" ? [] : text.split("\n").map((code) => clip(plainText(code), CODE_LINE_CHARS));
      }
    }
  }
  return null;
}

/** One line for the model: `path:line · author: "first words…" (2 replies)`, marked when outdated or resolved. */
export function threadLine(thread: ReviewThread): string {
  const [head] = thread.comments;
  const replies = thread.comments.length - 1 + (thread.more_comments ?? 0);
  const where = thread.line === null ? thread.path : `${thread.path}:${thread.line}`;
  const said = head ? ` · ${head.author}: ${quoted(head.body.replace(/\s+/g, " ").trim(), 80)}` : "";
  const marks = [
    ...(replies > 0 ? [`(${replies} ${replies === 1 ? "reply" : "replies"})`] : []),
    ...(thread.outdated ? ["outdated"] : []),
    ...(thread.resolved ? [`resolved by ${thread.resolved_by}`] : []),
    ...(thread.comments.some((c) => c.suggestion) ? ["suggestion"] : []),
  ];
  return `${where}${said}${marks.length > 0 ? ` ${marks.join(" · ")}` : ""}`;
}

const Counted = v.nullable(
  v.object({
    reviewThreads: v.object({
      pageInfo: v.object({ hasNextPage: v.boolean() }),
      nodes: v.array(v.object({ isResolved: v.boolean() })),
    }),
  }),
);

/** Unresolved threads of each PR among its first 100, all PRs in one request (aliases); `atLeast` when more exist. */
export async function countUnresolvedThreads(call: GitHubCall, numbers: readonly number[]) {
  const { owner, repo } = call.target;
  const fields = numbers.map(
    (_, i) =>
      `p${i}: pullRequest(number: $n${i}) { reviewThreads(first: 100) { pageInfo { hasNextPage } nodes { isResolved } } }`,
  );
  const query = `query($owner: String!, $name: String!${numbers.map((_, i) => `, $n${i}: Int!`).join("")}) {
  repository(owner: $owner, name: $name) { ${fields.join("\n")} }
}`;
  const variables = Object.fromEntries([["owner", owner], ["name", repo], ...numbers.map((n, i) => [`n${i}`, n])]);
  const schema = v.object({ repository: v.nullable(v.record(v.string(), Counted)) });
  const what = `review threads of pull requests ${numbers.map((n) => `#${n}`).join(", ")} in ${owner}/${repo}`;
  const answer = await githubGraphql(call, query, variables, schema, what);
  if (!answer.ok) return answer;
  const counts = new Map<number, { unresolved: number; atLeast: boolean }>();
  numbers.forEach((number, i) => {
    const threads = answer.value.repository?.[`p${i}`]?.reviewThreads;
    if (!threads) return;
    const unresolved = threads.nodes.filter((t) => !t.isResolved).length;
    counts.set(number, { unresolved, atLeast: threads.pageInfo.hasNextPage });
  });
  return ok(counts);
}
