import type { LaunchCommand } from "./self-command.ts";

const SERVER_FLAG = /^(?:--repo|--disable|--verbose|-v+)(?:=|$)/;

/** The server's own args, from the first of its flags on; what comes before belongs to the launcher (`bunx twig-mcp`). */
export function serverArgsOf(args: readonly string[]): string[] {
  const at = args.findIndex((arg) => SERVER_FLAG.test(arg));
  return at === -1 ? [] : args.slice(at);
}

/**
 * The entry to write over `existing`, and notes on what was kept or changed. Server args already
 * there are kept unless some are `given`; the launcher part is always ours to set.
 */
export function updateEntry(
  existing: LaunchCommand | null,
  launcher: LaunchCommand,
  given: readonly string[] | null,
): { launch: LaunchCommand; notes: string[] } {
  const before = existing === null ? [] : serverArgsOf(existing.args);
  const server = given ?? before;
  const launch = { command: launcher.command, args: [...launcher.args, ...server] };
  const notes: string[] = [];
  if (existing === null) return { launch, notes };
  if (existing.command !== launch.command) notes.push(`command was ${existing.command}, now ${launch.command}`);
  if (given === null && before.length > 0) {
    notes.push(
      `kept the server arguments already there: ${quoteWords(before)} (pass --repo or --disable to replace them)`,
    );
  } else if (given !== null && quoteWords(before) !== quoteWords(server)) {
    const describe = (args: readonly string[]) => (args.length === 0 ? "none" : quoteWords(args));
    notes.push(`server arguments were ${describe(before)}, now ${describe(server)}`);
  }
  return { launch, notes };
}

/** Words as typed in a shell: quoted (JSON-style) only when they need it. */
export function quoteWords(args: readonly string[]): string {
  return args.map((arg) => (/^[\w/.:=@%+,-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(" ");
}
