import * as v from "valibot";
import { clip, visibleDeep } from "../core/plain-text.ts";
import { ok } from "../core/result.ts";
import { compareKeys, getReviewThreads, type ReviewThread, threadLine } from "../github/review-threads.ts";
import { defineTool } from "./shared/define.ts";
import { FoundBySchema, openPrNumber, PrNumberSchema, targetParams } from "./shared/github-params.ts";
import { CursorSchema, count, encodeCursor, fitPage, HintSchema, hidden, resumeAfter } from "./shared/paging.ts";
import { unpublished } from "./shared/params.ts";

/** A comment's length in a page that must be cut to fit (a very small budget, or one thread of 30 long comments). */
const SHORT_BODY_CHARS = 300;
const Lines = v.object({ start_line: v.nullable(v.number()), end_line: v.nullable(v.number()) });
const ThreadSchema = v.object({
  path: v.string(),
  line: v.nullable(v.number()),
  start_line: v.optional(v.number()),
  side: v.string(),
  outdated: v.boolean(),
  resolved: v.boolean(),
  resolved_by: v.optional(v.string()),
  code: v.array(v.string()),
  comments: v.array(
    v.object({
      author: v.string(),
      body: v.string(),
      created_at: v.string(),
      suggestion: v.optional(v.object({ ...Lines.entries, lines: v.array(v.string()) })),
    }),
  ),
  more_comments: v.optional(v.number()),
  url: v.nullable(v.string()),
});

const ReviewThreadsSchema = v.object({
  pull_request: v.object({
    number: v.number(),
    title: v.string(),
    state: v.string(),
    url: v.string(),
    head_sha: v.string(),
  }),
  unresolved_threads: v.number(),
  total_threads: hidden(v.number()),
  threads: v.array(ThreadSchema),
  lines: v.array(v.string()),
  conversation: v.optional(
    hidden(v.array(v.object({ author: v.string(), created_at: v.string(), excerpt: v.string() }))),
  ),
  found_by: FoundBySchema,
  next_cursor: v.optional(hidden(v.string())),
  hint: HintSchema,
});
type ReviewThreadsOutput = v.InferOutput<typeof ReviewThreadsSchema>;

export const getReviewThreadsTool = defineTool({
  name: "get_review_threads",
  title: "PR review threads",
  description:
    "A PR's inline review threads in file order: commented code, comments, suggestions, resolved/outdated. Default: current branch's PR, unresolved only.",
  group: "github",
  input: v.object({
    pr_number: v.optional(PrNumberSchema),
    state: v.optional(v.pipe(v.picklist(["unresolved", "all"]), v.description("Default: unresolved."))),
    path: v.optional(v.pipe(v.string(), v.maxLength(4096), unpublished("maxLength"), v.description("File or folder."))),
    cursor: v.optional(CursorSchema),
    ...targetParams,
  }),
  output: ReviewThreadsSchema,
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPrNumber(ctx, args, info);
    if (!opened.ok) return opened;
    const { call, number, found_by } = opened.value;
    const { host, owner, repo } = call.target;
    const state = args.state ?? "unresolved";
    const under = (args.path ?? "").replace(/^\.?\/+|\/+$/g, "");
    const repository = `${host}/${owner}/${repo}`;
    const query = `get_review_threads\u0000${number}\u0000${state}\u0000${under}`;
    const resumed = resumeAfter(args.cursor, repository, query, (position) => parseKey(position.after));
    if (!resumed.ok) return resumed;
    const after = resumed.value;

    const read = await getReviewThreads(call, number);
    if (!read.ok) return read;
    const { pull_request, total, unread, threads, conversation } = read.value;
    const unresolved = threads.filter((t) => !t.resolved).length;
    const asked = threads.filter(
      (t) =>
        (state === "all" || !t.resolved) &&
        (under === "" || t.path === under || t.path.startsWith(`${under}/`)) &&
        (after === null || compareKeys(t.key, after) > 0),
    );
    // `short`: bodies cut to an excerpt, for a budget that one whole thread would overrun.
    const reply = (n: number, short = false): ReviewThreadsOutput => {
      const page = asked.slice(0, n);
      const last = page.at(-1);
      const rest = asked.length - page.length;
      const hints = [
        rest > 0 && `${count(rest)} more threads: pass next_cursor for the next page.`,
        unread !== null &&
          `Only ${count(threads.length)} of ${count(total)} threads were read: ${unread}; the PR's page has them all.`,
        short &&
          `Comments cut to ${SHORT_BODY_CHARS} characters to fit the reply budget; the thread's url has them whole.`,
      ].filter(Boolean);
      return {
        pull_request,
        unresolved_threads: unresolved,
        total_threads: total,
        threads: page.map(({ key: _, ...thread }) =>
          short
            ? { ...thread, comments: thread.comments.map((c) => ({ ...c, body: clip(c.body, SHORT_BODY_CHARS) })) }
            : thread,
        ),
        lines: page.map(threadLine),
        ...(after === null ? { conversation } : {}),
        ...(found_by === undefined ? {} : { found_by }),
        ...(rest > 0 && last
          ? { next_cursor: encodeCursor({ after: JSON.stringify(last.key), query }, repository) }
          : {}),
        ...(hints.length > 0 ? { hint: hints.join(" ") } : {}),
      };
    };
    // Measured as sent: escaping invisible characters can double a body's cost.
    const sent = (n: number) => visibleDeep(reply(n));
    const shorter = (n: number) => visibleDeep(reply(n, true));
    return ok(fitPage(info.budget, asked.length, { build: reply, sent, shorter }));
  },
});

function parseKey(text: string): ReviewThread["key"] | null {
  try {
    const key: unknown = JSON.parse(text);
    const valid =
      Array.isArray(key) && typeof key[0] === "string" && typeof key[1] === "number" && typeof key[2] === "string";
    return valid ? (key as unknown as ReviewThread["key"]) : null;
  } catch {
    return null;
  }
}
