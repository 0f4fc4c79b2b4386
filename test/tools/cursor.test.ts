import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { sha256Hex } from "../../src/core/sha256.ts";
import { decodeCursor, encodeCursor } from "../../src/tools/shared/paging.ts";

describe("list_branches cursors", () => {
  test("round-trip any position and query, for the repository they were made for", () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: null }), (after, query) => {
        expect(decodeCursor(encodeCursor({ after, query }, "/r"), "/r")).toEqual({ ok: true, value: { after, query } });
      }),
    );
  });

  test("a cursor for another repository is stale", () => {
    const decoded = decodeCursor(encodeCursor({ after: "a", query: null }, "/one"), "/two");
    expect(decoded).toEqual({ ok: false, why: "it pages through another repository" });
  });

  test("any one-character edit is caught", () => {
    const cursor = encodeCursor({ after: "feature/x", query: "abc" }, "/r");
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.constantFrom(..."ABCabc019-_."), (at, char) => {
        fc.pre(cursor[at] !== char);
        const edited = cursor.slice(0, at) + char + cursor.slice(at + 1);
        expect(decodeCursor(edited, "/r").ok).toBe(false);
      }),
    );
  });

  test("a well-formed cursor of another version, or garbage with a valid digest, is refused without throwing", () => {
    const sign = (payload: string) =>
      `${payload}.${sha256Hex(`twig-mcp list_branches cursor\u0000${payload}`).slice(0, 16)}`;
    const otherVersion = Buffer.from(JSON.stringify([2, "x", "a", null])).toString("base64url");
    expect(decodeCursor(sign(otherVersion), "/r")).toEqual({
      ok: false,
      why: "it comes from another version of twig-mcp",
    });
    expect(decodeCursor(sign("!!!"), "/r").ok).toBe(false);
    expect(decodeCursor("x".repeat(5000), "/r")).toEqual({ ok: false, why: "it is not a cursor this server made" });
  });
});
