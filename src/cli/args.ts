import { err, ok, type Result } from "../result.ts";

export const DISABLE_GROUPS = ["github", "jira", "prompts", "resources"] as const;
export type DisableGroup = (typeof DISABLE_GROUPS)[number];

export interface ServeOptions {
  command: "serve";
  repo: string | null;
  disabled: Set<DisableGroup>;
  verbosity: number;
}

export type CliCommand = ServeOptions | { command: "help" } | { command: "version" };

/** Usage errors carry the text to print and the exit code 2 (as clap does). */
export interface UsageError {
  message: string;
}

/** Parses argv (without the executable and script). */
export function parseArgs(argv: readonly string[]): Result<CliCommand, UsageError> {
  const options: ServeOptions = { command: "serve", repo: null, disabled: new Set(), verbosity: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? splitOnce(arg) : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined) return undefined;
      i++;
      return next;
    };
    switch (flag) {
      case "-h":
      case "--help":
        return ok({ command: "help" });
      case "-V":
      case "--version":
        return ok({ command: "version" });
      case "--verbose":
        options.verbosity++;
        break;
      case "--repo": {
        const path = value();
        if (!path) return err({ message: "--repo needs a path: twig-mcp --repo /path/to/repository" });
        options.repo = path;
        break;
      }
      case "--disable": {
        const group = value();
        if (!group || !(DISABLE_GROUPS as readonly string[]).includes(group)) {
          return err({
            message: `--disable takes one of ${DISABLE_GROUPS.join(", ")} (repeat the flag for several), got ${
              group === undefined ? "nothing" : `'${group}'`
            }`,
          });
        }
        options.disabled.add(group as DisableGroup);
        break;
      }
      default:
        if (/^-v+$/.test(flag)) {
          options.verbosity += flag.length - 1;
          break;
        }
        return err({ message: `unexpected argument '${arg}'. Run 'twig-mcp --help' for usage.` });
    }
  }
  return ok(options);
}

function splitOnce(arg: string): [string, string] {
  const at = arg.indexOf("=");
  return [arg.slice(0, at), arg.slice(at + 1)];
}

export const HELP_TEXT = `twig-mcp — read-only MCP server for twig branch stacks, GitHub pull requests and Jira issues

Usage: twig-mcp [OPTIONS]

Serves the Model Context Protocol on stdin/stdout for an MCP client (Claude Code, Claude Desktop,
Cursor, Codex, VS Code) to start. Logs go to stderr.

Options:
      --repo <PATH>      Repository to serve (searched upward from PATH); default: the current directory
      --disable <GROUP>  Turn off a group: github, jira, prompts, resources (repeatable)
  -v, --verbose          More logging on stderr (-v info, -vv debug, -vvv trace)
  -h, --help             Print help
  -V, --version          Print version
`;
