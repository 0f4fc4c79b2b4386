/** A client starts the server with pipes; on a terminal it would look hung, so a person is told. */
export const TERMINAL_HINT =
  "twig-mcp: waiting for an MCP client on stdin (Ctrl-C to quit); try 'twig-mcp demo' or 'twig-mcp --help'\n";

export function terminalHint(stdinIsTerminal: boolean | undefined): string | null {
  return stdinIsTerminal === true ? TERMINAL_HINT : null;
}
