/**
 * Messages built from what a server, a file or a remote sent: a token echoed back never survives,
 * not even in part, and a parse error never quotes the value it refused.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { describeIssues } from "../../src/core/errors.ts";
import { type GitHubCall, githubErrorToToolError } from "../../src/github/request.ts";
import { httpStatusError } from "../../src/jira/client.ts";

const TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
// The token straddles the 300-character clip: clipping first would leave its first half.
const ECHO = `${"x".repeat(280)} token=${TOKEN} and more`;

function survivingPart(text: string): string | null {
  for (let length = TOKEN.length; length >= 8; length--) {
    if (text.includes(TOKEN.slice(0, length))) return TOKEN.slice(0, length);
  }
  return null;
}

describe("a token echoed across the clip", () => {
  test("in GitHub's message is scrubbed before the message is clipped", () => {
    const error = githubErrorToToolError(
      { status: 502, message: "", response: { headers: {}, data: { message: ECHO } } },
      {
        connection: { baseUrl: "https://api.github.com", credentialSource: "$GH_TOKEN", secrets: [TOKEN] },
        target: { host: "github.com", owner: "o", repo: "r" },
        now: () => new Date(0),
      } as unknown as GitHubCall,
      { what: "pull request #1 in o/r" },
    );
    expect(survivingPart(error.message)).toBeNull();
    expect(error.message).toContain("[REDACTED]");
  });

  test("in Jira's messages is scrubbed before they are clipped", () => {
    const error = httpStatusError(
      500,
      { method: "GET", path: "/rest/api/3/issue/SHOP-1" },
      { errorMessages: [ECHO] },
      { site: "https://jira.example", credentialSource: "$JIRA_API_TOKEN", secrets: [TOKEN] },
    );
    expect(survivingPart(error.message)).toBeNull();
    expect(error.message).toContain("[REDACTED]");
  });
});

describe("parse errors", () => {
  const Schema = v.object({
    name: v.string(),
    kind: v.picklist(["a", "b"]),
    key: v.pipe(v.string(), v.regex(/^[A-Z]+-\d+$/)),
    counts: v.record(v.string(), v.number()),
  });
  const valid = { name: "n", kind: "a", key: "SHOP-1", counts: {} };

  const cases: Array<[string, unknown, string]> = [
    ["a wrong type", { ...valid, name: 42 }, "name: Invalid type: expected string"],
    ["a value outside a set", { ...valid, kind: TOKEN }, 'kind: Invalid type: expected ("a" | "b")'],
    ["a value failing a pattern", { ...valid, key: TOKEN }, "key: Invalid format: expected /^[A-Z]+-\\d+$/"],
    ["a whole file of the wrong shape", TOKEN, "Invalid type: expected Object"],
    ["a value in a record", { ...valid, counts: { x: TOKEN } }, "counts.x: Invalid type: expected number"],
  ];
  for (const [name, input, expected] of cases) {
    test(`name the path and the expected type, never the value: ${name}`, () => {
      const parsed = v.safeParse(Schema, input);
      if (parsed.success) throw new Error("expected a failure");
      const message = describeIssues(parsed.issues);
      expect(message).toBe(expected);
      expect(message).not.toContain("received");
      expect(survivingPart(message)).toBeNull();
    });
  }

  test("a key of the file is shown short and without control characters", () => {
    const parsed = v.safeParse(Schema, { ...valid, counts: { [`\u001b]52;c;${TOKEN}\u0007`]: "x" } });
    if (parsed.success) throw new Error("expected a failure");
    const message = describeIssues(parsed.issues);
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    expect(message.length).toBeLessThan(120);
  });

  test("a schema's own message, which quotes nothing, is kept", () => {
    const Key = v.pipe(v.string(), v.regex(/^x$/, 'Expected a Jira issue key such as "PROJ-123"'));
    const parsed = v.safeParse(Key, TOKEN);
    if (parsed.success) throw new Error("expected a failure");
    expect(describeIssues(parsed.issues)).toBe('Expected a Jira issue key such as "PROJ-123"');
  });
});
