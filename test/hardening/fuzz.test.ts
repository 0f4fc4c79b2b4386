/**
 * A short, seeded fuzz run of the compiled binary's stdio loop: well-formed MCP requests with
 * random arguments, mutated ones (fields dropped, types changed, ids of every kind), random JSON,
 * broken lines, raw bytes and batches, sent in bursts. After every burst a ping must come back;
 * every request that carries a usable id is answered exactly once; no tool fails as `internal`;
 * stdout stays pure JSON-RPC; EOF still ends the process with 0.
 *
 * Deterministic in CI (a fixed seed); set TWIG_MCP_FUZZ_SEED (and TWIG_MCP_FUZZ_MESSAGES) to explore.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { RawServer, type RpcResponse } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const SEED = Number(process.env.TWIG_MCP_FUZZ_SEED ?? 20_251_122);
const MESSAGES = Number(process.env.TWIG_MCP_FUZZ_MESSAGES ?? 1500);
const BURST = 50;
const TIME_BUDGET_MS = 8_000;

const TOOLS = [
  "get_current_branch",
  "get_branch_context",
  "get_branch_metadata",
  "get_branch_stack",
  "get_branch_tree",
  "list_branches",
  "list_repositories",
  "get_worktrees",
  "get_pull_request",
  "get_pr_status",
  "list_pull_requests",
  "get_ci_log",
  "get_jira_issue",
  "list_jira_issues",
  "no_such_tool",
];
const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/roots/list_changed",
  "notifications/progress",
  "sampling/createMessage",
  "",
  "tools/call/extra",
];
const KEYS = [
  "branch",
  "repo",
  "owner",
  "pr_number",
  "issue_key",
  "project",
  "status",
  "assignee",
  "state",
  "head",
  "base",
  "limit",
];

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "../../etc/passwd",
    "/",
    "feature/auth",
    "main",
    "SHOP-123",
    "SHOP",
    "-x",
    "\u0000",
    "\ud800",
    "shop",
  ),
);
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(text, { maxLength: 3 }),
);
const args = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 });

const params = fc.oneof(
  fc.record({ name: fc.constantFrom(...TOOLS), arguments: args }),
  fc.record({
    name: fc.constantFrom("branch-context", "stack-status", "review-pr", "plan-issue", "nope"),
    arguments: args,
  }),
  fc.record({
    uri: fc.oneof(
      fc.constantFrom(
        "twig://repo/tree",
        "twig://repo/branches",
        "twig://branch/feature%2Fauth/context",
        "file:///etc/passwd",
      ),
      text.map((t) => `twig://branch/${t}/context`),
      text,
    ),
  }),
  fc.record({
    ref: fc.record({ type: fc.constantFrom("ref/prompt", "ref/resource"), name: text, uri: text }),
    argument: fc.record({ name: fc.constantFrom("branch", "repo", "name", "x"), value: text }),
  }),
  fc.record({ level: fc.constantFrom("debug", "info", "warning", "emergency", "loud") }),
  fc.record({
    protocolVersion: fc.constantFrom("2025-11-25", "2024-11-05", "1999-01-01"),
    capabilities: fc.constant({}),
    clientInfo: fc.constant({ name: "f", version: "0" }),
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

type Mutation = "none" | "drop-jsonrpc" | "drop-id" | "weird-id" | "drop-method" | "weird-params" | "junk-field";

const message = fc.record({
  method: fc.constantFrom(...METHODS),
  params,
  mutation: fc.constantFrom<Mutation>(
    "none",
    "none",
    "none",
    "drop-jsonrpc",
    "drop-id",
    "weird-id",
    "drop-method",
    "weird-params",
    "junk-field",
  ),
  weirdId: fc.oneof(
    fc.double(),
    fc.constant(null),
    fc.constant({}),
    fc.constant([1]),
    fc.boolean(),
    fc.constant(2 ** 60),
  ),
  weirdParams: fc.oneof(fc.integer(), text, fc.array(value, { maxLength: 3 }), fc.constant(null)),
});

/** One line on the wire: a (possibly mutated) message, or something that is not one at all. */
const line = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => ({ kind: "message" as const, ...m })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((json) => ({ kind: "json" as const, json })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((raw) => ({ kind: "raw" as const, raw })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes) => ({ kind: "bytes" as const, bytes })) },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((batch) => ({ kind: "batch" as const, batch })) },
);

let world: World;
let server: RawServer;

beforeAll(async () => {
  world = makeWorld();
  server = await RawServer.start({ cwd: world.root, env: world.env });
  await server.initialize();
});

afterAll(async () => {
  if (server?.proc.exitCode === null) await server.close();
  world?.cleanup();
});

test(`[stdio-transport] fuzzing the stdio loop (seed ${SEED})`, async () => {
  // Answers to broken messages come from src/mcp/stdio-transport.ts; without it, fail at once.
  server.write("{oops\n");
  // Lines are answered in order: once the ping is answered, the reply to the broken line is in.
  await server.request("ping");
  if (server.nullIdResponses.length === 0) {
    throw new Error(
      "no -32700 reply to a line that is not JSON: src/cli/serve.ts still serves over the SDK's StdioServerTransport; import StdioServerTransport from ../mcp/stdio-transport.ts there",
    );
  }
  const lines = fc.sample(line, { seed: SEED, numRuns: MESSAGES });
  const expected: Array<Promise<RpcResponse>> = [];
  const started = performance.now();
  let sent = 0;
  let next = 0;
  const encoder = new TextEncoder();
  for (let burst = 0; next < lines.length && performance.now() - started < TIME_BUDGET_MS; burst++) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < BURST && next < lines.length; i++, next++) {
      const item = lines[next] as (typeof lines)[number];
      const id = `f${next}`;
      switch (item.kind) {
        case "message": {
          const built = build(item, id);
          for (const owed of owedIds(built.message)) expected.push(server.response(owed, 20_000));
          chunks.push(encoder.encode(`${JSON.stringify(built.message)}\n`));
          break;
        }
        case "json":
          for (const owed of owedIds(item.json)) expected.push(server.response(owed, 20_000));
          chunks.push(encoder.encode(`${JSON.stringify(item.json)}\n`));
          break;
        case "raw":
          chunks.push(encoder.encode(`${item.raw.replace(/\n/g, " ")}\n`));
          break;
        case "bytes":
          chunks.push(new Uint8Array([...item.bytes.filter((b) => b !== 0x0a), 0x0a]));
          break;
        case "batch": {
          const batch = item.batch.map((m, k) => build(m, `${id}-${k}`).message);
          for (const owed of owedIds(batch)) expected.push(server.response(owed, 20_000));
          chunks.push(encoder.encode(`${JSON.stringify(batch)}\n`));
          break;
        }
      }
      sent++;
    }
    const size = chunks.reduce((total, chunk) => total + chunk.length, 0);
    const joined = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    server.write(joined);
    const pong = await server.request("ping", undefined, { id: `ping-${burst}`, timeoutMs: 10_000 });
    expect(pong.result).toEqual({});
  }
  const responses = await Promise.all(expected);
  for (const response of responses) {
    const result = response.result as { isError?: boolean; content?: Array<{ text: string }> } | undefined;
    if (result?.isError) {
      const code = JSON.parse(result.content?.[0]?.text ?? "{}").error?.code;
      expect({ id: response.id, code }).not.toEqual({ id: response.id, code: "internal" });
    }
  }
  expect(sent).toBeGreaterThan(200);
  expect(server.stdoutProblems()).toEqual([]);
  expect(await server.close()).toBe(0);
}, 60_000);

/**
 * The ids the server owes an answer for one line: a JSON object with a string or safe-integer id
 * is a request — answered whatever else is wrong with it — unless it is shaped as a response; in a
 * batch (which is refused) each such element is answered under its own id.
 */
function owedIds(json: unknown): Array<string | number> {
  const owes = (item: unknown): item is { id: string | number } => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
    const o = item as Record<string, unknown>;
    const usable = typeof o.id === "string" || (typeof o.id === "number" && Number.isSafeInteger(o.id));
    const response = !("method" in o) && ("result" in o || "error" in o);
    return usable && !response;
  };
  if (Array.isArray(json)) return json.filter(owes).map((item) => item.id);
  return owes(json) ? [json.id] : [];
}

/** The message for a generated item, mutated as the item says. */
function build(item: Record<string, unknown>, id: string): { message: Record<string, unknown> } {
  const m = item as {
    method: string;
    params: unknown;
    mutation: Mutation;
    weirdId: unknown;
    weirdParams: unknown;
  };
  const out: Record<string, unknown> = { jsonrpc: "2.0", id, method: m.method, params: m.params };
  // Notifications carry no id; a cancellation could silence a real request, so none is sent.
  if (m.method.startsWith("notifications/")) delete out.id;
  switch (m.mutation) {
    case "drop-jsonrpc":
      delete out.jsonrpc;
      break;
    case "drop-id":
      delete out.id;
      break;
    case "weird-id":
      out.id = m.weirdId;
      break;
    case "drop-method":
      delete out.method;
      break;
    case "weird-params":
      out.params = m.weirdParams;
      break;
    case "junk-field":
      out.junk = { nested: [1, 2, 3] };
      break;
    case "none":
      break;
  }
  return { message: out };
}
