import { expect, test } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StatelessRequests } from "../../src/mcp/stateless.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The layer between a fake stdio (what it writes) and a fake server (what reaches it). */
function layer() {
  const written: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message) => {
      written.push(message);
    },
  };
  const outer = new StatelessRequests(inner, {
    serverInfo: { name: "twig-mcp", version: "1" },
    capabilities: { tools: {} },
    instructions: "hi",
  });
  const delivered: JSONRPCMessage[] = [];
  outer.onmessage = (message) => delivered.push(message);
  return { inner, outer, written, delivered, receive: (message: JSONRPCMessage) => inner.onmessage?.(message) };
}

test("requests without the revision's _meta, notifications and responses pass both ways untouched", async () => {
  const { outer, written, delivered, receive } = layer();
  await outer.start();
  const plain: JSONRPCMessage[] = [
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x", _meta: { progressToken: 1 } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 3, result: {} },
  ];
  for (const message of plain) receive(message);
  expect(delivered).toEqual(plain);
  await outer.send({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  await outer.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
  expect(written).toEqual([
    { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
  ]);
});

test("a stateless request's result is completed once; a cancelled one is forgotten, so a later answer under its id is not", async () => {
  const { outer, written, receive } = layer();
  await outer.start();
  receive({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x", _meta: META } });
  await outer.send({ jsonrpc: "2.0", id: 7, result: { content: [], _meta: { mine: 1 } } });
  await outer.send({ jsonrpc: "2.0", id: 7, result: {} });
  expect(written).toEqual([
    {
      jsonrpc: "2.0",
      id: 7,
      result: {
        content: [],
        resultType: "complete",
        _meta: { mine: 1, "io.modelcontextprotocol/serverInfo": { name: "twig-mcp", version: "1" } },
      },
    },
    { jsonrpc: "2.0", id: 7, result: {} },
  ]);
  receive({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "x", _meta: META } });
  receive({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } });
  await outer.send({ jsonrpc: "2.0", id: 8, result: {} });
  expect(written.at(-1)).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
});

test("server/discover is answered here and never reaches the server", async () => {
  const { outer, written, delivered, receive } = layer();
  await outer.start();
  receive({ jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: META } });
  await Bun.sleep(0);
  expect(delivered).toEqual([]);
  expect(written).toEqual([
    {
      jsonrpc: "2.0",
      id: "d",
      result: {
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        instructions: "hi",
        resultType: "complete",
        ttlMs: 3_600_000,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "twig-mcp", version: "1" } },
      },
    },
  ]);
});
