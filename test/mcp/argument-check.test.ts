import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { printable, quoteReceived } from "../../src/core/plain-text.ts";
import { closest } from "../../src/core/suggest.ts";
import { argumentsHint, describeArgumentIssue, unknownArgumentError } from "../../src/mcp/argument-check.ts";

const input = v.object({
  branch: v.optional(v.string()),
  state: v.optional(v.pipe(v.picklist(["open", "closed", "all"]), v.description("State."))),
  limit: v.optional(v.number()),
});

function issueOf(args: unknown): string {
  const parsed = v.safeParse(input, args);
  if (parsed.success) throw new Error("expected a failure");
  return describeArgumentIssue(input, parsed.issues);
}

describe("unknown arguments", () => {
  test("none: no error; the arguments' values are validation's business", () => {
    expect(unknownArgumentError("t", input, { branch: 1, limit: "x" })).toBeNull();
    expect(unknownArgumentError("t", input, "not an object")).toBeNull();
  });

  test("one close to a known name gets a did-you-mean; a far one does not", () => {
    expect(unknownArgumentError("t", input, { stat: "open" })?.message).toBe(
      "Invalid arguments for t: unknown argument 'stat'; did you mean 'state'?",
    );
    expect(unknownArgumentError("t", input, { colour: "red" })).toEqual({
      code: "invalid_params",
      message: "Invalid arguments for t: unknown argument 'colour'",
      hint: "t takes: branch, state, limit.",
    });
  });
});

describe("validation problems", () => {
  test("a picklist lists its values, with a did-you-mean when one is close", () => {
    expect(issueOf({ state: "CLOSED" })).toBe(
      "state: 'CLOSED' is not one of 'open', 'closed', 'all'; did you mean 'closed'?",
    );
    expect(issueOf({ state: "merged" })).toBe("state: 'merged' is not one of 'open', 'closed', 'all'");
    expect(issueOf({ state: 3 })).toBe("state: 3 is not one of 'open', 'closed', 'all'");
  });

  test("what was received is repeated short and printable, whatever its type", () => {
    expect(issueOf({ limit: `a\nb${"c".repeat(500)}` })).toBe(
      `limit: Invalid type: Expected number but received 'a?b${"c".repeat(37)}…'`,
    );
    expect(issueOf({ branch: { nested: "x".repeat(1000) } })).toBe(
      "branch: Invalid type: Expected string but received Object",
    );
    expect(issueOf({ branch: [1] })).toBe("branch: Invalid type: Expected string but received Array");
  });
});

describe("a missing required argument", () => {
  test("is named, with the tool's arguments", () => {
    const required = v.object({ branch: v.string(), repo: v.optional(v.string()) });
    const parsed = v.safeParse(required, {});
    if (parsed.success) throw new Error("expected a failure");
    expect(describeArgumentIssue(required, parsed.issues)).toBe('missing required argument "branch"');
    expect(argumentsHint("get_branch_metadata", required)).toBe("get_branch_metadata takes: branch (required), repo.");
    expect(argumentsHint("get_current_branch", v.object({}))).toBe("get_current_branch takes no arguments.");
  });
});

describe("quoting and suggesting", () => {
  test("printable cuts on whole characters and replaces controls, separators and bidi overrides", () => {
    expect(printable("😀".repeat(50))).toBe(`${"😀".repeat(40)}…`);
    expect(printable("a\u0000\u007f\u0085\u2028\u202eb")).toBe("a?????b");
    expect(quoteReceived(null)).toBe("null");
    expect(quoteReceived(undefined)).toBe("undefined");
  });

  test("closest ignores very short and very long words", () => {
    expect(closest("br", ["branch"])).toBeNull();
    expect(closest("b".repeat(65), ["b".repeat(64)])).toBeNull();
    expect(closest("brnch", ["branch", "repo"])).toBe("branch");
  });
});
