import { createMcpServer } from "../mcp/server.ts";
import { StdioServerTransport } from "../mcp/stdio-transport.ts";
import type { ServeOptions } from "./args.ts";
import { publishedTools } from "./published-tools.macro.ts" with { type: "macro" };
import { createRuntimeContext, createToolRegistry, maxReplyTokensFor } from "./runtime.ts";

/** Serves MCP on stdio until the client goes away; resolves to the process exit code. */
export async function serve(options: ServeOptions): Promise<number> {
  const ctx = await createRuntimeContext(options);
  if (ctx === null) return 1;
  const log = ctx.log;
  const tools = createToolRegistry(options.disabled, publishedTools(), maxReplyTokensFor(options, ctx));
  const { server, connect, dispose } = createMcpServer(ctx, tools, {
    prompts: !options.disabled.has("prompts"),
    resources: !options.disabled.has("resources"),
  });
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const finished = new Promise<number>((done) => {
    // The SDK's stdio transport does not watch for EOF; a client that closes our stdin is gone.
    process.stdin.once("end", () => done(0));
    process.stdin.once("close", () => done(0));
    process.once("SIGINT", () => done(0));
    process.once("SIGTERM", () => done(0));
    transport.onclose = () => done(0);
  });
  server.onerror = (error) => log.debug(`protocol: ${error.message}`);
  await connect(transport);
  log.info(`serving ${ctx.repo.ok ? ctx.repo.value : "(no repository)"} on stdio`);
  const code = await finished;
  dispose();
  return code;
}
