import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { invalidParamsReply } from "../../src/mcp/stdio-transport.ts";

const request = (method: string, params?: unknown) =>
  ({ jsonrpc: "2.0", id: 9, method, ...(params === undefined ? {} : { params }) }) as JSONRPCMessage;

describe("invalidParamsReply", () => {
  test("params the SDK's schema refuses are -32602, naming the first problem and keeping the id", () => {
    expect(invalidParamsReply(request("tools/call", { name: "x", arguments: "branch=main" }))).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32602,
        message: "Invalid params for tools/call: params.arguments: expected record, received string",
      },
    });
    const init = invalidParamsReply(request("initialize", { protocolVersion: 2025, capabilities: {}, clientInfo: {} }));
    expect(init?.error.code).toBe(-32602);
    expect(init?.error.message).toStartWith("Invalid params for initialize: params.");
    expect(
      invalidParamsReply(request("prompts/get", { name: "p", arguments: { branch: 7 } }))?.error.message,
    ).toContain("params.arguments.branch");
    expect(invalidParamsReply(request("resources/read", {}))?.error.code).toBe(-32602);
  });

  test("valid requests, unknown methods, notifications and responses pass untouched", () => {
    expect(invalidParamsReply(request("tools/call", { name: "x", arguments: {} }))).toBeNull();
    expect(invalidParamsReply(request("ping"))).toBeNull();
    expect(invalidParamsReply(request("no/such", 5))).toBeNull();
    expect(invalidParamsReply({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeNull();
    expect(invalidParamsReply({ jsonrpc: "2.0", id: 1, result: {} })).toBeNull();
  });
});
