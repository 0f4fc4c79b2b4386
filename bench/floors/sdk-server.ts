/**
 * Floor (b)'s server, shared by its two entry points: a minimal `@modelcontextprotocol/sdk`
 * low-level `Server` with one trivial tool over the SDK's stdio transport. `beforeAnswer` runs
 * before each `tools/call` is answered.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export function serveSdkFloor(beforeAnswer: () => void = () => {}): void {
  const server = new Server(
    { name: "floor-sdk", version: "0.0.0" },
    { capabilities: { tools: { listChanged: false } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "ping",
        description: "Answers pong.",
        inputSchema: { type: "object", properties: {} },
        annotations: { readOnlyHint: true },
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async () => {
    beforeAnswer();
    return { content: [{ type: "text", text: "pong" }], structuredContent: { pong: true } };
  });

  process.stdin.once("end", () => process.exit(0));
  void server.connect(new StdioServerTransport());
}
