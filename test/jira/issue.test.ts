import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import {
  JiraIssuePayloadSchema,
  JiraIssueSchema,
  renderDescription,
  toJiraIssue,
  truncate,
} from "../../src/jira/issue.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const payload = (fields: Record<string, unknown>) =>
  v.parse(JiraIssuePayloadSchema, {
    id: "10002",
    key: "SHOP-123",
    fields: { summary: "Fix checkout", status: { name: "In Progress" }, ...fields },
  });

describe("toJiraIssue", () => {
  test("twig's keys first in twig's order, then the added ones", () => {
    const issue = toJiraIssue(
      payload({
        description: "h1. Title",
        assignee: { displayName: "Alice Example", accountId: "a1" },
        reporter: { displayName: "Bob Builder" },
        issuetype: { name: "Bug" },
        priority: { name: "High" },
        labels: ["backend", "checkout"],
        updated: "2025-06-03T14:22:07.481+0000",
      }),
      "https://jira.example.com/browse/SHOP-123",
      1000,
    );
    expect(Object.keys(issue)).toEqual([
      "key",
      "summary",
      "description",
      "status",
      "assignee",
      "url",
      "issue_type",
      "priority",
      "labels",
      "reporter",
      "updated",
    ]);
    expect(issue).toEqual({
      key: "SHOP-123",
      summary: "Fix checkout",
      description: "# Title",
      status: "In Progress",
      assignee: "Alice Example",
      url: "https://jira.example.com/browse/SHOP-123",
      issue_type: "Bug",
      priority: "High",
      labels: ["backend", "checkout"],
      reporter: "Bob Builder",
      updated: "2025-06-03T14:22:07.481+0000",
    });
    expect(v.safeParse(JiraIssueSchema, issue).success).toBe(true);
  });

  test("absent values are omitted, never null; labels default to []", () => {
    const issue = toJiraIssue(
      payload({ description: null, assignee: null, reporter: null, issuetype: null, priority: null, labels: null }),
      "u",
      1000,
    );
    expect(issue).toEqual({ key: "SHOP-123", summary: "Fix checkout", status: "In Progress", url: "u", labels: [] });
    expect(v.safeParse(JiraIssueSchema, issue).success).toBe(true);
  });

  test("Server users without displayName fall back to name, then e-mail", () => {
    const issue = toJiraIssue(
      payload({ assignee: { name: "alice" }, reporter: { emailAddress: "b@example.com" } }),
      "u",
      10,
    );
    expect(issue.assignee).toBe("alice");
    expect(issue.reporter).toBe("b@example.com");
  });

  test("ADF and wiki descriptions both become text; empty ones are omitted", () => {
    const adf = { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: "hi" }] }] };
    expect(renderDescription(adf)?.text).toBe("hi");
    expect(renderDescription("*hi*")?.text).toBe("**hi**");
    expect(renderDescription({ type: "doc", version: 1, content: [{ type: "paragraph" }] })).toBeNull();
    expect(renderDescription("   ")).toBeNull();
    expect(renderDescription(null)).toBeNull();
  });

  test("long descriptions are cut and flagged", () => {
    const long = `${"word ".repeat(400)}end`;
    const issue = toJiraIssue(payload({ description: long }), "u", 100);
    expect(issue.truncated).toBe(true);
    expect(issue.description?.endsWith("\n…")).toBe(true);
    expect((issue.description ?? "").length).toBeLessThanOrEqual(102);
    expect(Object.keys(issue).at(-1)).toBe("truncated");
    expect(v.safeParse(JiraIssueSchema, issue).success).toBe(true);
  });
});

describe("truncate", () => {
  test("short text is untouched", () => {
    expect(truncate("abc", 3)).toEqual({ text: "abc", truncated: false });
  });

  test("cuts at a line break near the limit", () => {
    expect(truncate("aaaaaaaaa\nbbbbbbbbbb", 12)).toEqual({ text: "aaaaaaaaa\n…", truncated: true });
  });

  test("never splits a surrogate pair", () => {
    expect(truncate("😀😀😀", 3)).toEqual({ text: "😀\n…", truncated: true });
  });

  test("property: result is a prefix (plus marker) within the budget", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 2, max: 200 }), (text, max) => {
        const cut = truncate(text, max);
        if (!cut.truncated) {
          expect(cut.text).toBe(text);
          return;
        }
        const body = cut.text.slice(0, -2);
        expect(cut.text.endsWith("\n…")).toBe(true);
        expect(text.startsWith(body)).toBe(true);
        expect(body.length).toBeLessThanOrEqual(max);
        expect(/[\ud800-\udbff]$/.test(body)).toBe(false);
      }),
    );
  });
});
