import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { EtagCache } from "../../src/github/http.ts";
import { classifyCheck, summarize } from "../../src/github/pr-status.ts";
import { trimBody } from "../../src/github/pull-request.ts";
import { parseLinkHeader } from "../../src/github/request.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const review = (author: string, state: string, submitted_at: string | null = "2024-01-01T00:00:00Z") => ({
  author,
  state,
  submitted_at,
});

const latestReviews = (reviews: ReturnType<typeof review>[]) => summarize(reviews, [], []).latest_reviews;

describe("latestReviews", () => {
  test("a decisive review replaces the previous one; a later comment does not undo it", () => {
    expect(
      latestReviews([
        review("a", "COMMENTED"),
        review("a", "CHANGES_REQUESTED"),
        review("b", "APPROVED"),
        review("a", "APPROVED"),
        review("b", "COMMENTED"),
      ]),
    ).toEqual([
      { author: "a", state: "APPROVED" },
      { author: "b", state: "APPROVED" },
    ]);
  });

  test("dismissal stands until the next review; pending reviews are ignored", () => {
    expect(
      latestReviews([
        review("a", "APPROVED"),
        review("a", "DISMISSED"),
        review("b", "PENDING", null),
        review("c", "COMMENTED"),
        review("a", "COMMENTED"),
      ]),
    ).toEqual([
      { author: "a", state: "COMMENTED" },
      { author: "c", state: "COMMENTED" },
    ]);
  });
});

describe("summarize", () => {
  test("classification", () => {
    expect(classifyCheck({ status: "completed", conclusion: "success" })).toBe("passing");
    expect(classifyCheck({ status: "completed", conclusion: "skipped" })).toBe("passing");
    expect(classifyCheck({ status: "completed", conclusion: "neutral" })).toBe("passing");
    for (const conclusion of ["failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale"]) {
      expect(classifyCheck({ status: "completed", conclusion })).toBe("failing");
    }
    for (const status of ["queued", "in_progress", "waiting", "requested", "pending"]) {
      expect(classifyCheck({ status, conclusion: null })).toBe("pending");
    }
  });

  test("statuses count with check runs; error and failure fail", () => {
    const summary = summarize(
      [],
      [{ name: "a", status: "completed", conclusion: "success", url: null }],
      [
        { context: "x", state: "error", description: null, url: null },
        { context: "y", state: "pending", description: null, url: null },
      ],
    );
    expect(summary.checks).toEqual({ total: 3, passing: 1, failing: 1, pending: 1 });
    expect(summary.verdict).toBe("failing");
  });

  test("counts always add up and the verdict follows them", () => {
    const check = fc.record({
      name: fc.string(),
      status: fc.constantFrom("queued", "in_progress", "completed"),
      conclusion: fc.option(fc.constantFrom("success", "failure", "neutral", "skipped", "cancelled"), { nil: null }),
      url: fc.constant(null),
    });
    const status = fc.record({
      context: fc.string(),
      state: fc.constantFrom("success", "failure", "error", "pending"),
      description: fc.constant(null),
      url: fc.constant(null),
    });
    fc.assert(
      fc.property(fc.array(check), fc.array(status), (checks, statuses) => {
        const { checks: c, verdict } = summarize([], checks, statuses);
        expect(c.total).toBe(checks.length + statuses.length);
        expect(c.passing + c.failing + c.pending).toBe(c.total);
        if (c.total === 0) expect(verdict).toBe("no_checks");
        else if (c.failing > 0) expect(verdict).toBe("failing");
        else if (c.pending > 0) expect(verdict).toBe("pending");
        else expect(verdict).toBe("passing");
      }),
    );
  });
});

describe("helpers", () => {
  test("Link header parsing", () => {
    expect(
      parseLinkHeader(
        '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last", <https://api.github.com/x?page=1>; rel="first prev"',
      ),
    ).toEqual({
      next: "https://api.github.com/x?page=2",
      last: "https://api.github.com/x?page=5",
      first: "https://api.github.com/x?page=1",
      prev: "https://api.github.com/x?page=1",
    });
    expect(parseLinkHeader(undefined)).toEqual({});
    expect(parseLinkHeader("garbage")).toEqual({});
  });

  test("body trimming keeps surrogate pairs whole", () => {
    expect(trimBody(null, 10)).toEqual({ text: null, truncated: false });
    expect(trimBody(" a\r\nb ", 10)).toEqual({ text: "a\nb", truncated: false });
    const emoji = `${"x".repeat(9)}😀😀`;
    const cut = trimBody(emoji, 10);
    expect(cut.truncated).toBe(true);
    expect(cut.text).toBe(`${"x".repeat(9)}…`);
  });

  test("ETag cache is a bounded LRU by count and size", () => {
    const cache = new EtagCache({ maxEntries: 2, maxBytes: 10, maxEntryBytes: 6 });
    cache.set("a", { etag: "1", body: "aaaa", headers: [] });
    cache.set("b", { etag: "2", body: "bbbb", headers: [] });
    cache.get("a");
    cache.set("c", { etag: "3", body: "cc", headers: [] });
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.etag).toBe("1");
    cache.set("big", { etag: "4", body: "0123456789", headers: [] });
    expect(cache.get("big")).toBeUndefined();
    cache.set("d", { etag: "5", body: "dddddd", headers: [] });
    expect(cache.size).toBeLessThanOrEqual(2);
  });
});
