import { afterEach, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { toolError } from "../../src/core/errors.ts";
import { err } from "../../src/core/result.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { StdioServerTransport } from "../../src/mcp/stdio-transport.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { localTools } from "../../src/tools/all.ts";
import { createTestContext } from "../support/context.ts";

/** The server over our transport on in-memory pipes: what a client writes, and every line it reads back. */
function connect(options: { maxMessageBytes?: number } = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let partial = "";
  let lineArrived = () => {};
  stdout.on("data", (chunk: Buffer) => {
    partial += chunk.toString("utf8");
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
    lineArrived();
  });
  const ctx = createTestContext({
    home: "/nonexistent",
    dirs: { configDir: "/nonexistent", dataDir: "/nonexistent", cacheDir: "/nonexistent" },
    repo: err(toolError("no_repo", "none")),
  });
  const { server, connect: connectServer } = createMcpServer(ctx, new ToolRegistry(localTools, new Set()));
  const transport = new StdioServerTransport(stdin, stdout, options);
  const errors: string[] = [];
  let closed = 0;
  let onClosed = () => {};
  const whenClosed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  server.onerror = (error) => errors.push(error.message);
  server.onclose = () => {
    closed++;
    onClosed();
  };
  const ready = connectServer(transport);
  const responses = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  /** Waits until `count` lines have arrived. */
  const until = async (count: number) => {
    while (lines.length < count) await new Promise<void>((resolve) => (lineArrived = resolve));
    return responses();
  };
  return { stdin, stdout, lines, errors, until, ready, transport, closed: () => closed, whenClosed, server };
}

let open: ReturnType<typeof connect>[] = [];
afterEach(async () => {
  for (const c of open) await c.transport.close();
  open = [];
});
function session(options?: { maxMessageBytes?: number }) {
  const c = connect(options);
  open.push(c);
  return c;
}

const ping = (id: unknown) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

describe("StdioServerTransport", () => {
  test("a message is written as one line of JSON, non-ASCII text as UTF-8", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: Buffer[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk));
    const transport = new StdioServerTransport(stdin, stdout);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, result: { text: "ü\n" } });
    await transport.send({ jsonrpc: "2.0", id: 2, result: {} });
    expect(Buffer.concat(written).toString("utf8")).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"ü\\n"}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n',
    );
    await transport.close();
  });

  test("a line that is not JSON is answered -32700 with id null, and the next request is served", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"ping"\n${ping(2)}`);
    expect(await c.until(2)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: not valid JSON" } },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });

  test("JSON that is not JSON-RPC is -32600, with the request's id when it has one", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(
      [
        '{"foo":1}',
        '{"jsonrpc":"1.0","id":5,"method":"ping"}',
        '{"jsonrpc":"2.0","id":6,"method":"ping","params":[1]}',
        '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
        '{"jsonrpc":"2.0","id":7,"method":42}',
        "42",
        '"text"',
        "null",
        "",
      ].join("\n"),
    );
    c.stdin.write(ping(8));
    const got = await c.until(9);
    expect(got.map((r) => [r.id, (r.error as { code?: number } | undefined)?.code ?? "ok"])).toEqual([
      [null, -32600],
      [5, -32600],
      [6, -32600],
      [null, -32600],
      [7, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [8, "ok"],
    ]);
  });

  test("malformed responses and notifications are never answered", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(
      '{"jsonrpc":"2.0","id":1,"result":5}\n{"jsonrpc":"2.0","method":"notifications/x","params":3}\n{"jsonrpc":"2.0","id":99,"result":{}}\n',
    );
    c.stdin.write(ping("after"));
    expect(await c.until(1)).toEqual([{ jsonrpc: "2.0", id: "after", result: {} }]);
    expect(c.errors.length).toBeGreaterThanOrEqual(2);
  });

  test("a batch is refused: one -32600 per request in it, or one with id null", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(`[${ping(1).trim()},{"jsonrpc":"2.0","method":"notifications/initialized"},${ping("b").trim()}]\n`);
    c.stdin.write("[]\n[1,2]\n");
    c.stdin.write(ping(3));
    const got = await c.until(5);
    expect(got.map((r) => [r.id, (r.error as { code?: number } | undefined)?.code ?? "ok"])).toEqual([
      [1, -32600],
      ["b", -32600],
      [null, -32600],
      [null, -32600],
      [3, "ok"],
    ]);
  });

  test("a line over the limit is dropped as it streams in and answered; the session goes on", async () => {
    const c = session({ maxMessageBytes: 1024 });
    await c.ready;
    const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(5000)}"}}`;
    for (let i = 0; i < huge.length; i += 100) c.stdin.write(huge.slice(i, i + 100));
    c.stdin.write(`\n${ping(2)}`);
    const got = await c.until(2);
    expect(got[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(JSON.stringify(got[0]?.error)).toContain("1024 bytes");
    expect(got[1]).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  test("a message split across many chunks, and several messages in one chunk, are both read", async () => {
    const c = session();
    await c.ready;
    const text = ping("split");
    for (const ch of text) c.stdin.write(ch);
    c.stdin.write(`${ping("a")}${ping("b")}\r\n`.replace('"b"}\n', '"b"}'));
    const got = await c.until(3);
    expect(got.map((r) => r.id)).toEqual(["split", "a", "b"]);
  });

  test("bytes that are not UTF-8 inside a string do not break the session", async () => {
    const c = session();
    await c.ready;
    const bytes = Buffer.concat([
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_branch_metadata","arguments":{"branch":"a',
      ),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}}}\n'),
    ]);
    c.stdin.write(bytes);
    c.stdin.write(Buffer.from([0x80, 0x81, 0x0a]));
    c.stdin.write(ping(2));
    const got = await c.until(3);
    const byId = (id: unknown) => got.find((r) => r.id === id);
    expect(byId(1)).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(byId(1))).toContain('\\"code\\":\\"no_repo\\"');
    expect(byId(null)).toMatchObject({ error: { code: -32700 } });
    expect(byId(2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  test("params the SDK's schema refuses are -32602 Invalid params, not -32603", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_branch_metadata", arguments: "x" } })}\n`,
    );
    c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 7 } })}\n`);
    c.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "prompts/get", params: { name: "stack-status", arguments: { repo: 5 } } })}\n`,
    );
    c.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "loud" } })}\n`,
    );
    c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "resources/read", params: {} })}\n`);
    const got = await c.until(5);
    for (const response of got) expect(response).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(got[0]?.error)).toContain("params.arguments");
  });

  test("tools/call with a progress token or vendor _meta is answered; one asking for a task gets the SDK's refusal", async () => {
    const c = session();
    await c.ready;
    const call = (id: number, params: Record<string, unknown>) =>
      c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })}\n`);
    call(1, { name: "get_current_branch", arguments: {}, _meta: { progressToken: 7, "vendor/trace": "x" } });
    call(2, { name: "get_current_branch", _meta: { progressToken: 1.5 } });
    call(3, { name: "get_current_branch", task: { ttl: 1000 } });
    call(4, { name: "no_such_tool" });
    const got = await c.until(4);
    const byId = (id: number) => got.find((r) => r.id === id);
    expect(byId(1)).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(byId(1))).toContain('\\"code\\":\\"no_repo\\"');
    // A progress token that is not an integer fails the message schema itself, as before.
    expect(byId(2)).toMatchObject({ error: { code: -32600 } });
    expect(byId(3)).toMatchObject({
      error: { message: "Server does not support task creation (required for tools/call)" },
    });
    expect(byId(4)).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringMatching(/^MCP error -32602: tool not found: 'no_such_tool' Enabled tools: /),
      },
    });
  });

  test("every valid message reaches the protocol, with or without _meta; an unknown method is -32601", async () => {
    const c = session();
    await c.ready;
    c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
    c.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { progressToken: 1 } } })}\n`,
    );
    c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such" })}\n`);
    const got = await c.until(3);
    expect(got.find((r) => r.id === 1)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(got.find((r) => r.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(got.find((r) => r.id === 3)).toMatchObject({ error: { code: -32601 } });
  });

  test("end of input closes the session; a broken stdout closes it too", async () => {
    const a = session();
    await a.ready;
    a.stdin.end();
    await a.whenClosed;
    expect(a.closed()).toBe(1);

    const b = session();
    await b.ready;
    b.stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await b.whenClosed;
    expect(b.closed()).toBe(1);
    await b.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  });
});
