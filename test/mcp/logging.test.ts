import { expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createLogger } from "../../src/core/log.ts";
import { forwardLogsToClient } from "../../src/mcp/server.ts";

/** A transport that keeps what the server sends. */
function memoryTransport() {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message) => {
      sent.push(message);
    },
  };
  return { transport, sent };
}

test("log lines reach only a client that sent initialize; a stateless client, which asked for none, gets none", async () => {
  const server = new Server({ name: "t", version: "0" }, { capabilities: { logging: {} } });
  const log = forwardLogsToClient(
    server,
    createLogger(0, () => {}),
  );
  const { transport, sent } = memoryTransport();
  await server.connect(transport);
  const notifications = () =>
    sent.filter((message) => "method" in message && message.method === "notifications/message");

  log.warn("before initialize");
  expect(notifications()).toEqual([]);

  transport.onmessage?.({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "0" } },
  });
  while (!sent.some((message) => "id" in message && message.id === 1)) await Bun.sleep(1);
  log.warn("after initialize");
  log.info("below the threshold");
  while (notifications().length === 0) await Bun.sleep(1);
  expect(notifications()).toEqual([
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "warning", logger: "twig-mcp", data: "after initialize" },
    },
  ]);
  await server.close();
});
