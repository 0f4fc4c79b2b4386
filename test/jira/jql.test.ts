import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import {
  buildKeysJql,
  buildSearchJql,
  normalizeIssueKey,
  normalizeProjectKey,
  quoteJqlString,
} from "../../src/jira/jql.ts";
import { type JqlToken, lexJql } from "../support/fake-jira.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

/** Strings biased towards everything that could end or bend a JQL literal. */
const hostile = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({
    unit: fc.constantFrom('"', "'", "\\", " ", "\n", "\r", "\t", "\u0000", "u", "0", "A", "(", ")", "=", "~"),
  }),
  fc.constantFrom(
    '" OR project = "OTHER',
    '\\" OR 1=1 OR "',
    "\\",
    '"',
    "\\u0022",
    'a"b\\"c',
    "\ud800",
    "\udfff\ud800x",
  ),
);

const str = (value: string): JqlToken => ({ kind: "string", value });
const word = (value: string): JqlToken => ({ kind: "word", value });
const eq: JqlToken = { kind: "op", value: "=" };
const orderBy = [word("ORDER"), word("BY"), word("updated"), word("DESC")];

describe("quoteJqlString", () => {
  test("examples", () => {
    expect(quoteJqlString("In Progress")).toBe('"In Progress"');
    expect(quoteJqlString('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteJqlString("back\\slash")).toBe('"back\\\\slash"');
    expect(quoteJqlString("a\nb\tc\rd")).toBe('"a\\nb\\tc\\rd"');
    expect(quoteJqlString("\u0000\u001f\u007f\u0085")).toBe('"\\u0000\\u001f\\u007f\\u0085"');
    expect(quoteJqlString("ü😀")).toBe('"ü😀"');
    expect(quoteJqlString("\ud800")).toBe('"\\ud800"');
    expect(quoteJqlString("")).toBe('""');
  });

  test("property: any string is exactly one literal that decodes back to itself", () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const quoted = quoteJqlString(value);
        expect(lexJql(quoted)).toEqual([str(value)]);
      }),
      { numRuns: 2000 },
    );
  });

  test("property: output holds no raw control character and no unescaped quote", () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const inner = quoteJqlString(value).slice(1, -1);
        expect(/[\u0000-\u001f\u007f-\u009f]/.test(inner)).toBe(false);
        // Every quote inside is preceded by an odd run of backslashes.
        for (const match of inner.matchAll(/(\\*)"/g)) expect((match[1] as string).length % 2).toBe(1);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("buildSearchJql", () => {
  test("clauses in twig's order, values quoted", () => {
    expect(buildSearchJql({ project: "SHOP" })).toBe('project = "SHOP" ORDER BY updated DESC');
    expect(buildSearchJql({ project: "SHOP", status: "In Progress", assignee: "me" })).toBe(
      'project = "SHOP" AND status = "In Progress" AND assignee = currentUser() ORDER BY updated DESC',
    );
    expect(buildSearchJql({ project: "SHOP", assignee: "Alice Example" })).toBe(
      'project = "SHOP" AND assignee = "Alice Example" ORDER BY updated DESC',
    );
    expect(buildSearchJql({ project: "SHOP", assignee: "unassigned" })).toBe(
      'project = "SHOP" AND assignee IS EMPTY ORDER BY updated DESC',
    );
  });

  test("empty filters are left out", () => {
    expect(buildSearchJql({ project: "SHOP", status: "  ", assignee: "" })).toBe(
      'project = "SHOP" ORDER BY updated DESC',
    );
  });

  test("the reserved word AND as a project key stays a value", () => {
    expect(lexJql(buildSearchJql({ project: "AND" }))).toEqual([word("project"), eq, str("AND"), ...orderBy]);
  });

  test("property: no argument changes the shape of the query", () => {
    fc.assert(
      fc.property(hostile, hostile, (status, assignee) => {
        fc.pre(status.trim() !== "" && assignee.trim() !== "");
        fc.pre(!["me", "currentuser()", "unassigned"].includes(assignee.trim().toLowerCase()));
        const tokens = lexJql(buildSearchJql({ project: "SHOP", status, assignee }));
        expect(tokens).toEqual([
          word("project"),
          eq,
          str("SHOP"),
          word("AND"),
          word("status"),
          eq,
          str(status.trim()),
          word("AND"),
          word("assignee"),
          eq,
          str(assignee.trim()),
          ...orderBy,
        ]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("buildKeysJql", () => {
  test("every key quoted, in one clause", () => {
    expect(buildKeysJql(["SHOP-1", "SHOP-22"])).toBe('key in ("SHOP-1", "SHOP-22")');
    // A value that is no key cannot end its literal and add clauses.
    expect(buildKeysJql(['X-1") OR project = "SECRET'])).toBe('key in ("X-1\\") OR project = \\"SECRET")');
  });
});

describe("buildSearchJql's assignee", () => {
  test.each([
    ["me", "assignee = currentUser()"],
    ["ME", "assignee = currentUser()"],
    [" me ", "assignee = currentUser()"],
    ["currentUser()", "assignee = currentUser()"],
    ["Unassigned", "assignee IS EMPTY"],
    ["meg", 'assignee = "meg"'],
    ["alice@example.com", 'assignee = "alice@example.com"'],
  ])("%p → %p", (assignee, clause) => {
    expect(buildSearchJql({ project: "SHOP", assignee })).toBe(`project = "SHOP" AND ${clause} ORDER BY updated DESC`);
  });
});

describe("key normalisation", () => {
  test.each([
    ["SHOP-123", "SHOP-123"],
    ["shop-123", "SHOP-123"],
    [" Ab_1-0042 ", "AB_1-0042"],
    ["S-1", null],
    ["SHOP-", null],
    ["-123", null],
    ["1SHOP-2", null],
    ["SHOP-1/../../x", null],
    ["SHOP-1?fields=x", null],
    ["SHOP 1", null],
    ["ＳＨＯＰ-1", null],
    ["SHOP-١٢", null],
  ])("issue key %p → %p", (input, expected) => {
    expect(normalizeIssueKey(input)).toBe(expected);
  });

  test.each([
    ["SHOP", "SHOP"],
    ["shop", "SHOP"],
    ["AB_2", "AB_2"],
    ["S", null],
    ["2FA", null],
    ['SHOP" OR project = "X', null],
    ["", null],
  ])("project key %p → %p", (input, expected) => {
    expect(normalizeProjectKey(input)).toBe(expected);
  });
});
