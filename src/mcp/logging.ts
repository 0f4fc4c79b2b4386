import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type LoggingLevel, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger, LogLevel } from "../core/log.ts";
import { plainText } from "../core/plain-text.ts";

const SEVERITY = Object.fromEntries(
  ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"].map((level, i) => [level, i]),
) as Record<LoggingLevel, number>;

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = {
  error: "error",
  warn: "warning",
  info: "info",
  debug: "debug",
  trace: "debug",
};

/**
 * Mirrors log lines to the client as `notifications/message` at or above the level it asked for
 * with `logging/setLevel` (warning until it asks), once it has sent `initialize`: the stateless
 * revision forbids log notifications a request did not ask for, and these lines belong to no
 * request. stderr logging is unchanged. Log text never carries secrets: the modules that handle
 * tokens scrub them before logging.
 */
export function forwardLogsToClient(server: Server, log: Logger): Logger {
  let threshold: number = SEVERITY.warning;
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    threshold = SEVERITY[request.params.level];
    return {};
  });
  const forwarding = (level: LogLevel) => (message: string) => {
    log[level](message);
    const mcpLevel = MCP_LEVEL[level];
    if (SEVERITY[mcpLevel] < threshold || !server.transport || server.getClientVersion() === undefined) return;
    // A client may show these to a person or a model, as the stderr log is shown: plain text only.
    server.sendLoggingMessage({ level: mcpLevel, logger: "twig-mcp", data: plainText(message) }).catch(() => {});
  };
  const levels = Object.keys(MCP_LEVEL) as LogLevel[];
  return {
    ...(Object.fromEntries(levels.map((level) => [level, forwarding(level)])) as Record<LogLevel, (m: string) => void>),
    enabled: (level) => log.enabled(level) || SEVERITY[MCP_LEVEL[level]] >= threshold,
  };
}
