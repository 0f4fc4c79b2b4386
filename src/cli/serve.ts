import { readSettings } from "../core/settings.ts";
import { createMcpServer } from "../mcp/server.ts";
import { StdioServerTransport } from "../mcp/stdio-transport.ts";
import type { ServeOptions } from "./args.ts";
import { TERMINAL_HINT } from "./help.ts";
import { createRuntimeContext, createToolRegistry } from "./runtime.ts";

/** Serves MCP on stdio until the client goes away; resolves to the process exit code. */
export async function serve(options: ServeOptions, ignored: readonly string[] = []): Promise<number> {
  if (process.stdin.isTTY) process.stderr.write(TERMINAL_HINT);
  const ctx = await createRuntimeContext(options);
  if (ctx === null) return 1;
  for (const note of ignored) ctx.log.warn(note);
  // Every setting read (and a bad one reported) at start; --max-reply-tokens wins over TWIG_MCP_MAX_REPLY_TOKENS.
  const settings = readSettings(ctx.env, (message) => ctx.log.warn(message));
  const budget = options.maxReplyTokens ?? settings.maxReplyTokens;
  const tools = createToolRegistry(options.disabled, budget);
  const { server, connect, dispose } = createMcpServer(ctx, tools, {
    prompts: !options.disabled.has("prompts"),
    resources: !options.disabled.has("resources"),
  });
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const finished = new Promise<number>((done) => {
    // The SDK's stdio transport does not watch for EOF; a client that closes our stdin is gone.
    process.stdin.once("end", () => done(0));
    process.stdin.once("close", () => done(0));
    // No SIGINT/SIGTERM listener, on purpose: one would wait for a free event loop, while the default
    // action ends the process at once; a read-only server has nothing to flush.
    transport.onclose = () => done(0);
  });
  server.onerror = (error) => ctx.log.debug(`protocol: ${error.message}`);
  await connect(transport);
  ctx.log.info(`serving ${ctx.repo.ok ? ctx.repo.value : "(no repository)"} on stdio`);
  const code = await finished;
  dispose();
  return code;
}
