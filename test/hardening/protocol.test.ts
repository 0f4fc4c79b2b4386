/**
 * JSON-RPC over stdio against the compiled binary: broken and hostile input is answered as
 * JSON-RPC says (or ignored where it says so), and the next valid request is always served.
 *
 * The tests marked [stdio-transport] need `src/cli/serve.ts` to serve over
 * `src/mcp/stdio-transport.ts` (the SDK's own transport does not answer parse errors or batches,
 * and closes the session on a message over 10 MB).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type RawServer, RawServer as Server } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

let world: World;
let server: RawServer;

beforeAll(async () => {
  world = makeWorld();
  server = await Server.start({ cwd: world.root, env: world.env });
});
afterAll(async () => {
  await server?.close();
  world?.cleanup();
});

/** Sends raw lines, then a ping, and returns the ping's response: proof the session goes on. */
async function stillServing(id: string): Promise<void> {
  const pong = await server.request("ping", undefined, { id, timeoutMs: 10_000 });
  expect(pong).toEqual({ jsonrpc: "2.0", id, result: {} });
}

/**
 * The id-null responses since `before`, once `count` of them have arrived (they carry no id to
 * wait on), or once a ping sent after them is answered: the transport answers lines in order, so
 * any still missing by then will not come.
 */
async function nullResponses(before: number, count: number) {
  const pong = server.request("ping");
  await Promise.race([server.until(() => server.nullIdResponses.length >= before + count), pong]);
  await pong;
  return server.nullIdResponses.slice(before);
}

describe("before initialize", () => {
  test("requests are answered (tools/list, a tool call, ping), then initialize succeeds", async () => {
    const list = await server.request("tools/list");
    expect((list.result?.tools as unknown[] | undefined)?.length).toBeGreaterThan(5);
    const call = await server.call("get_current_branch");
    expect(call.structured).toMatchObject({ branch: "feature/auth-ui" });
    await stillServing("pre-init");
    const init = await server.initialize();
    expect(init.protocolVersion).toBe("2025-11-25");
  });
});

describe("after initialize", () => {
  test("unknown methods are -32601 with the request's id; unknown notifications are ignored", async () => {
    server.send({ jsonrpc: "2.0", method: "notifications/does-not-exist", params: {} });
    for (const [id, method] of [
      [1, "does/not/exist"],
      ["s", "tools/delete"],
      [2, ""],
      [3, "rpc.discover"],
    ] as const) {
      expect(await server.request(method, {}, { id })).toEqual({
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: "Method not found" },
      });
    }
    await stillServing("after-unknown");
  });

  test("a notification sent with an id is a request for an unknown method (-32601); the session goes on", async () => {
    for (const method of ["notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"]) {
      const response = await server.request(method, { requestId: 1 }, { id: `n-${method}` });
      expect(response.error?.code).toBe(-32601);
    }
    await stillServing("after-notification-ids");
  });

  test("duplicate ids: both requests are answered, each once, under that id", async () => {
    const first = server.response(42);
    const second = server.response(42);
    server.send({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "get_branch_stack", arguments: {} } });
    server.send({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "list_branches", arguments: {} } });
    const answers = await Promise.all([first, second]);
    const texts = answers.map((a) => JSON.stringify(a.result));
    expect(texts.some((t) => t.includes("stack"))).toBe(true);
    expect(texts.some((t) => t.includes("branches"))).toBe(true);
    // The id is free again afterwards.
    expect((await server.request("ping", undefined, { id: 42 })).result).toEqual({});
  });

  test("params of the wrong JSON type are -32602 Invalid params, never -32603", async () => {
    const cases: Array<[string, unknown]> = [
      ["tools/call", { name: "get_branch_metadata", arguments: "branch=main" }],
      ["tools/call", { name: "get_branch_metadata", arguments: [1, 2] }],
      ["tools/call", { name: 42 }],
      ["tools/call", {}],
      ["prompts/get", { name: "branch-context", arguments: { branch: 7 } }],
      ["resources/read", { uri: 5 }],
      ["logging/setLevel", { level: "everything" }],
      ["completion/complete", { ref: { type: "ref/prompt" }, argument: {} }],
      ["initialize", { protocolVersion: 2025 }],
    ];
    for (const [method, params] of cases) {
      const response = await server.request(method, params);
      expect(response.error?.code).toBe(-32602);
    }
    await stillServing("after-bad-params");
  });

  test("an unknown tool is a JSON-RPC error; a response for no request and a cancel for none are ignored", async () => {
    const unknown = await server.request("tools/call", { name: "rm_rf", arguments: {} });
    expect(unknown.error?.code).toBe(-32602);
    server.send({ jsonrpc: "2.0", id: 987654, result: {} });
    server.send({ jsonrpc: "2.0", id: 987655, error: { code: 1, message: "x" } });
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 123456789 } });
    await stillServing("after-stray");
  });

  test("a large valid message (a 1 MB argument, 6 MB of JSON) is answered", async () => {
    const long = "é".repeat(1_000_000);
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: "large",
      method: "tools/call",
      params: { name: "get_branch_stack", arguments: { branch: long } },
    }).replace(/é/g, "\\u00e9");
    expect(line.length).toBeGreaterThan(6_000_000);
    const response = server.response("large", 20_000);
    server.write(`${line}\n`);
    const answer = await response;
    expect(answer.result?.isError).toBe(true);
    expect(JSON.stringify(answer.result)).toContain("not_found");
    await stillServing("after-large");
  });
});

const TRANSPORT_MISSING =
  "no -32700 reply to a line that is not JSON: src/cli/serve.ts still serves over the SDK's StdioServerTransport; import StdioServerTransport from ../mcp/stdio-transport.ts there";

describe("[stdio-transport] malformed input", () => {
  let transportReady = false;
  beforeAll(async () => {
    const before = server.nullIdResponses.length;
    server.write("{oops\n");
    await stillServing("probe");
    transportReady = (await nullResponses(before, 1)).length === 1;
  });
  beforeEach(() => {
    if (!transportReady) throw new Error(TRANSPORT_MISSING);
  });

  test("probe: the server answers a parse error (serve.ts uses src/mcp/stdio-transport.ts)", () => {
    expect(transportReady).toBe(true);
  });

  test("lines that are not JSON are -32700 with id null", async () => {
    const lines = ["{oops", "}", "nul", '{"jsonrpc":"2.0","id":1,"method":"ping"', "\u0000\u0001", "'single'", "{}}"];
    const before = server.nullIdResponses.length;
    for (const line of lines) server.write(`${line}\n`);
    await stillServing("after-garbage");
    const got = await nullResponses(before, lines.length);
    expect(got).toHaveLength(lines.length);
    for (const response of got) expect(response.error?.code).toBe(-32700);
  });

  test("bytes that are not UTF-8 between messages do not break framing", async () => {
    const before = server.nullIdResponses.length;
    server.write(new Uint8Array([0xff, 0xfe, 0xfd, 0x0a, 0xc3, 0x28, 0x0a]));
    await stillServing("after-binary");
    expect(await nullResponses(before, 2)).toHaveLength(2);
  });

  test("JSON that is not a JSON-RPC message is -32600", async () => {
    const id = await server.request("ping", { unexpected: true }, { id: "ok-extra-params" });
    expect(id.result).toEqual({});
    const withId = server.response(77);
    server.write('{"jsonrpc":"1.0","id":77,"method":"ping"}\n');
    expect((await withId).error?.code).toBe(-32600);
    const before = server.nullIdResponses.length;
    server.write('{"hello":"world"}\n42\n"text"\n{"jsonrpc":"2.0","id":[1],"method":"ping"}\n');
    await stillServing("after-invalid");
    const got = await nullResponses(before, 4);
    expect(got.map((r) => r.error?.code)).toEqual([-32600, -32600, -32600, -32600]);
  });

  test("a JSON-RPC batch is refused with -32600 for each request in it; notifications in it are not run", async () => {
    const a = server.response("batch-a");
    const b = server.response("batch-b");
    server.write(
      `${JSON.stringify([
        { jsonrpc: "2.0", id: "batch-a", method: "tools/list" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "batch-b", method: "ping" },
      ])}\n`,
    );
    expect((await a).error?.code).toBe(-32600);
    expect((await b).error?.code).toBe(-32600);
    const before = server.nullIdResponses.length;
    server.write("[]\n");
    await stillServing("after-batch");
    expect((await nullResponses(before, 1))[0]?.error?.code).toBe(-32600);
  });

  test("a 20 MB message is refused without closing the session", async () => {
    const before = server.nullIdResponses.length;
    const pad = "x".repeat(1024 * 1024);
    server.write(
      '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"get_branch_stack","arguments":{"branch":"',
    );
    for (let i = 0; i < 20; i++) server.write(pad);
    server.write('"}}}\n');
    await stillServing("after-huge");
    const got = await nullResponses(before, 1);
    expect(got[0]?.error).toMatchObject({ code: -32600 });
    if (process.platform === "linux") expect(server.rssKiB()).toBeLessThan(400 * 1024);
  });
});

describe("stdout", () => {
  test("every line the server wrote in this session is a JSON-RPC message", () => {
    expect(server.stdoutProblems()).toEqual([]);
  });
});
