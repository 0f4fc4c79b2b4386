import { describe, expect, spyOn, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { dataJsonOf, errorResult, okResult } from "../../src/mcp/envelope.ts";
import { ResultJson } from "../../src/mcp/result-json.ts";
import { reusableAnswer } from "../../src/tools/reusable-answer.ts";

/** What the SDK hands the transport: a copy of the result (it re-parses it), same strings inside. */
function reply(id: number | string, result: Record<string, unknown>): JSONRPCMessage {
  const copy: Record<string, unknown> = {
    ...result,
    content: (result.content as object[]).map((item) => ({ ...item })),
  };
  if (result.structuredContent) copy.structuredContent = { ...(result.structuredContent as object) };
  return { jsonrpc: "2.0", id, result: copy } as JSONRPCMessage;
}

/** The line `results` writes for `message`, as text and without its newline. */
function serialize(results: ResultJson, message: JSONRPCMessage): string {
  const line = results.line(message);
  return (typeof line === "string" ? line : new TextDecoder().decode(line)).slice(0, -1);
}

function remembered(results: ResultJson, id: number | string, data: Record<string, unknown>, reusable = false) {
  const result = okResult(data);
  const json = dataJsonOf(result);
  if (json === undefined) throw new Error("okResult left no JSON");
  results.remember(id, result.content[0]?.text ?? "", json, reusable ? data : undefined);
  return result;
}

const DATA = {
  tree: [{ branch: "main", children: [{ branch: 'feat/ü "quoted"\n', children: [] }] }],
  text: "main\n└── feat\n",
  n: 3,
  none: null,
};

describe("okResult", () => {
  test("its text is exactly upstream's envelope", () => {
    const result = okResult(DATA);
    expect(result.content[0]?.text).toBe(JSON.stringify({ status: "ok", data: DATA }));
    expect(dataJsonOf(result)).toBe(JSON.stringify(DATA));
  });
});

describe("ResultJson", () => {
  test("a remembered reply is written as JSON.stringify would, byte for byte once parsed", () => {
    const results = new ResultJson();
    const result = remembered(results, 7, DATA);
    const message = reply(7, result);
    const line = serialize(results, message);
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
    expect(line).toContain(`"structuredContent":${JSON.stringify(DATA)}`);
  });

  test("string ids and an empty data object", () => {
    const results = new ResultJson();
    const result = remembered(results, "req-1", {});
    const message = reply("req-1", result);
    expect(JSON.parse(serialize(results, message))).toEqual(JSON.parse(JSON.stringify(message)));
  });

  test("an entry is used once", () => {
    const results = new ResultJson();
    const result = remembered(results, 1, DATA);
    const first = serialize(results, reply(1, result));
    // Spliced: structuredContent comes last, unlike JSON.stringify's order.
    expect(first).not.toBe(JSON.stringify(reply(1, result)));
    const again = reply(1, result);
    expect(serialize(results, again)).toBe(JSON.stringify(again));
  });

  test("a stale entry never stands in for another reply with the same id", () => {
    const results = new ResultJson();
    remembered(results, 5, DATA);
    // The client reused id 5 for a call whose data differs.
    const fresh = okResult({ ...DATA, n: 99 });
    const message = reply(5, fresh);
    const line = serialize(results, message);
    expect(line).toBe(JSON.stringify(message));
    expect(JSON.parse(line).result.structuredContent.n).toBe(99);
  });

  test("error results, error replies and notifications are written plainly", () => {
    const results = new ResultJson();
    remembered(results, 9, DATA);
    const failed = reply(9, errorResult({ code: "not_found", message: "no", hint: "look" }));
    expect(serialize(results, failed)).toBe(JSON.stringify(failed));
    remembered(results, 10, DATA);
    const error = { jsonrpc: "2.0", id: 10, error: { code: -32603, message: "boom" } } as JSONRPCMessage;
    expect(serialize(results, error)).toBe(JSON.stringify(error));
    const note = {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "x" },
    } as JSONRPCMessage;
    expect(serialize(results, note)).toBe(JSON.stringify(note));
  });

  test("entries for calls that never answered are bounded", () => {
    const results = new ResultJson();
    for (let id = 0; id < 1000; id++) remembered(results, id, DATA);
    // The oldest were dropped: id 0 is written plainly, the newest still spliced.
    const oldest = reply(0, okResult(DATA));
    expect(serialize(results, oldest)).toBe(JSON.stringify(oldest));
    const newest = reply(999, okResult(DATA));
    const line = serialize(results, newest);
    expect(line).not.toBe(JSON.stringify(newest));
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(newest)));
  });

  test("a reusable answer's reply body is kept from its first repeat and written again after", () => {
    const results = new ResultJson();
    const answer = reusableAnswer({ ...DATA });
    const first = serialize(results, reply(1, remembered(results, 1, answer, true)));
    // Written once: nothing kept yet (an answer replaced before it is repeated keeps no copy).
    const once = spyOn(JSON, "stringify");
    serialize(results, reply(3, remembered(results, 3, answer, true)));
    expect(once.mock.calls.length).toBeGreaterThan(1);
    once.mockRestore();
    const repeat = reply(2, remembered(results, 2, answer, true));
    const stringify = spyOn(JSON, "stringify");
    const second = serialize(results, repeat);
    // Only the id is serialised; the text is not escaped again.
    expect(stringify.mock.calls.map((call) => call[0])).toEqual([2]);
    stringify.mockRestore();
    expect(JSON.parse(second)).toEqual(JSON.parse(JSON.stringify(repeat)));
    // The same body, only the id differs.
    expect(second.slice(second.indexOf('"result":'))).toBe(first.slice(first.indexOf('"result":')));
    expect(okResult(answer).content[0]?.text).toBe(okResult(answer).content[0]?.text);
  });

  test("a kept body is not used for a reply that carries more than the envelope", () => {
    const results = new ResultJson();
    const answer = reusableAnswer({ ...DATA });
    serialize(results, reply(1, remembered(results, 1, answer, true)));
    const withMeta = reply(2, { ...remembered(results, 2, answer, true), _meta: { note: "per call" } });
    const line = serialize(results, withMeta);
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(withMeta)));
    expect(JSON.parse(line).result._meta).toEqual({ note: "per call" });
  });

  test("line(): the whole line, newline included; a large reusable answer's repeat comes as bytes", () => {
    const results = new ResultJson(16 * 1024);
    const big = reusableAnswer({ branches: Array.from({ length: 600 }, (_, i) => ({ branch: `feature/ü-${i}` })) });
    const first = results.line(reply(1, remembered(results, 1, big, true)));
    expect(typeof first).toBe("string");
    expect(typeof results.line(reply(6, remembered(results, 6, big, true)))).toBe("string");
    const repeat = reply(2, remembered(results, 2, big, true));
    const second = results.line(repeat);
    expect(second).toBeInstanceOf(Uint8Array);
    const text = new TextDecoder().decode(second as Uint8Array);
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(repeat)));
    // A small answer, and anything not remembered, stays a string.
    const small = reusableAnswer({ n: 1 });
    results.line(reply(3, remembered(results, 3, small, true)));
    results.line(reply(7, remembered(results, 7, small, true)));
    expect(results.line(reply(4, remembered(results, 4, small, true)))).toBe(
      `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\\"status\\":\\"ok\\",\\"data\\":{\\"n\\":1}}"}],"isError":false,"structuredContent":{"n":1}}}\n`,
    );
    const plain = { jsonrpc: "2.0", id: 5, result: {} } as JSONRPCMessage;
    expect(results.line(plain)).toBe(`${JSON.stringify(plain)}\n`);
  });

  test("an odd result for a remembered id (no content, a null item) is written plainly, never thrown on", () => {
    const results = new ResultJson();
    for (const [id, result] of [
      [11, { content: [], structuredContent: { n: 1 }, isError: false }],
      [12, { content: [null], structuredContent: { n: 1 }, isError: false }],
    ] as const) {
      remembered(results, id, DATA, true);
      const message = { jsonrpc: "2.0", id, result } as unknown as JSONRPCMessage;
      expect(results.line(message)).toBe(`${JSON.stringify(message)}\n`);
    }
  });
});
