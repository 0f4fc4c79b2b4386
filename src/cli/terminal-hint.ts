/**
 * Started by hand on a terminal, the server would sit silent waiting for JSON-RPC and look hung.
 * A client always starts it with pipes, so a terminal on stdin means a person is watching.
 */
export const TERMINAL_HINT =
  "twig-mcp: waiting for an MCP client on stdin (Ctrl-C to quit); try 'twig-mcp demo' or 'twig-mcp --help'\n";

/** The line to print on stderr before serving, or `null` when stdin is a pipe or a file. */
export function terminalHint(stdinIsTerminal: boolean | undefined): string | null {
  return stdinIsTerminal === true ? TERMINAL_HINT : null;
}
