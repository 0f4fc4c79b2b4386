import { plainText } from "./plain-text.ts";

/** Log levels, least to most verbose. Logs go to stderr only: stdout carries JSON-RPC alone. */
const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Logger = Record<LogLevel, (message: string) => void> & { enabled(level: LogLevel): boolean };

/** `verbosity` counts `-v` flags: 0 → warn, 1 → info, 2 → debug, 3+ → trace (as upstream). */
export function createLogger(verbosity: number, sink = (line: string): unknown => process.stderr.write(line)): Logger {
  const max = Math.min(1 + Math.max(0, verbosity), LOG_LEVELS.length - 1);
  const enabled = (level: LogLevel) => LOG_LEVELS.indexOf(level) <= max;
  const at = (level: LogLevel) => (message: string) => {
    // Messages quote branch names and server answers; a terminal showing stderr must not act on them.
    if (enabled(level))
      sink(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} twig-mcp: ${plainText(message)}\n`);
  };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug"), trace: at("trace"), enabled };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {}, trace() {}, enabled: () => false };
