import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type LoggingLevel, LoggingLevelSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger, LogLevel } from "../core/log.ts";
import { plainText } from "../core/plain-text.ts";

/** MCP's levels, least severe first. */
const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = {
  error: "error",
  warn: "warning",
  info: "info",
  debug: "debug",
  trace: "debug",
};

/**
 * Mirrors log lines to the client at or above its `logging/setLevel`, only after `initialize`: the
 * stateless revision forbids unrequested notifications. Token-handling modules scrub secrets before logging.
 */
export function forwardLogsToClient(server: Server, log: Logger): Logger {
  let threshold: number = severity("warning");
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    threshold = severity(request.params.level);
    return {};
  });
  const forwarding = (level: LogLevel) => (message: string) => {
    log[level](message);
    const mcpLevel = MCP_LEVEL[level];
    if (severity(mcpLevel) < threshold || !server.transport || server.getClientVersion() === undefined) return;
    // A client may show these to a person or a model, as the stderr log is shown: plain text only.
    server.sendLoggingMessage({ level: mcpLevel, logger: "twig-mcp", data: plainText(message) }).catch(() => {});
  };
  const levels = Object.keys(MCP_LEVEL) as LogLevel[];
  return {
    ...(Object.fromEntries(levels.map((level) => [level, forwarding(level)])) as Record<LogLevel, (m: string) => void>),
    enabled: (level) => log.enabled(level) || severity(MCP_LEVEL[level]) >= threshold,
  };
}
