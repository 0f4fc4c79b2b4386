import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { binaryPath } from "./binary.ts";

interface Envelope {
  status: "ok" | "error";
  data?: unknown;
  error?: { code: string; message: string; hint?: string };
}

export interface ToolCall {
  /** The raw text content, for byte-exact comparisons with upstream. */
  text: string;
  envelope: Envelope;
  structured: unknown;
  isError: boolean;
}

export interface RunningServer {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCall>;
  stderr(): string;
  /** The server process's id, for reading its memory from `/proc`. */
  pid(): number | null;
  close(): Promise<void>;
  /** Replaces the roots the client reports, tells the server they changed, and resolves once it has asked for them. */
  setRoots(directories: string[]): Promise<void>;
}

/**
 * Starts the compiled binary as an MCP client would (the SDK's `Client` over stdio) and connects.
 * `env` should be a hermetic environment (see hermetic-env.ts): nothing leaks from the developer.
 */
export async function startServer(options: {
  cwd: string;
  env: Record<string, string>;
  args?: string[];
  /** Directories this client exposes as MCP roots; the client then declares the roots capability. */
  roots?: string[];
}): Promise<RunningServer> {
  const transport = new StdioClientTransport({
    command: await binaryPath(),
    args: options.args ?? [],
    cwd: options.cwd,
    env: options.env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  let roots = options.roots ?? [];
  // Resolved each time the server asks for the roots: after a list_changed, that request is what
  // makes the server's next tool calls wait for the new roots.
  let rootsAsked: () => void = () => {};
  const client = new Client(
    { name: "twig-mcp-tests", version: "0.0.0" },
    options.roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  if (options.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      rootsAsked();
      return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) };
    });
  }
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ type: string; text: string }>;
      const text = content[0]?.text ?? "";
      return {
        text,
        envelope: JSON.parse(text) as Envelope,
        structured: result.structuredContent,
        isError: result.isError === true,
      };
    },
    stderr: () => stderr,
    pid: () => transport.pid,
    close: () => client.close(),
    async setRoots(directories) {
      roots = directories;
      const asked = new Promise<void>((resolve) => {
        rootsAsked = resolve;
      });
      await client.sendRootsListChanged();
      await asked;
    },
  };
}
