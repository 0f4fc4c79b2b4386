import type { Subcommand } from "./args.ts";

/** Serving, on a terminal: a client starts the server with pipes, so a person would think it hung. */
export const TERMINAL_HINT =
  "twig-mcp: waiting for an MCP client on stdin (Ctrl-C to quit); try 'twig-mcp demo' or 'twig-mcp --help'\n";

const COMMON = `  --repo <PATH>      Repository to use (searched upward from PATH); default: the current directory
  --disable <GROUP>  Turn off a group: github, jira, prompts, resources (repeatable)
  --max-reply-tokens <N>
                     Largest tool reply in tokens (default 20000, 0 = unlimited)
  -v, --verbose      More logging on stderr (-v info, -vv debug, -vvv trace)
  -h, --help         Print help`;

const HELP_TEXT = `twig-mcp — read-only MCP server for twig branch stacks, GitHub pull requests and Jira issues

Usage: twig-mcp [OPTIONS]
       twig-mcp <COMMAND> [OPTIONS]

Without a command, serves the Model Context Protocol on stdin/stdout for an MCP client (Claude
Code, Claude Desktop, Cursor, Codex, VS Code) to start. Logs go to stderr.

Commands:
  tools             List the enabled tools (--json: their full schemas)
  call <TOOL>       Run one tool against the current repository and print its result
  config <CLIENT>   Print (or --write) the configuration that registers twig-mcp with a client
  doctor            Check repository, twig files, credentials and Jira settings
  demo              Show what an assistant sees, on a throwaway sample repository (needs only git)
  help [COMMAND]    Print help for a command

Options:
      --repo <PATH>      Repository to serve (searched upward from PATH); default: the current directory
                         (or set TWIG_MCP_REPO)
      --disable <GROUP>  Turn off a group: github, jira, prompts, resources (repeatable;
                         or set TWIG_MCP_DISABLE=jira,prompts)
      --max-reply-tokens <N>
                         Largest tool reply in tokens, estimated from above (default 20000,
                         0 = unlimited; or set TWIG_MCP_MAX_REPLY_TOKENS)
  -v, --verbose          More logging on stderr (-v info, -vv debug, -vvv trace)
  -h, --help             Print help
  -V, --version          Print version

Run 'twig-mcp <COMMAND> --help' for a command's options.
`;

const TOPICS: Record<Subcommand, string> = {
  tools: `List the tools an MCP client would see, one line each: name, group, what it does.

Usage: twig-mcp tools [--json] [--disable GROUP]...

Options:
  --json             Print the full tools/list answer: titles, descriptions, input and output schemas
${COMMON}

Example:
  twig-mcp tools --disable jira
`,

  call: `Run one tool from the shell, exactly as an MCP client would call it, and print the result.

Usage: twig-mcp call <TOOL> [ARGS] [--repo PATH] [--json]

ARGS is one JSON object ('{"branch":"main"}'), or key=value pairs (branch=main: a value is text
where the tool expects text, and JSON such as 42 or true elsewhere), or '-' to read a JSON object
from standard input.

The result's data is printed as indented JSON on stdout; multi-line text fields (such as a drawn
branch tree) are printed once more as plain text below it. A tool error is printed on stderr and
the exit status is 1; a usage error (unknown tool, bad ARGS) exits with 2.

Options:
  --json             Print the tool's result text exactly as the server sends it (one JSON line)
${COMMON}

Examples:
  twig-mcp call get_current_branch
  twig-mcp call get_branch_stack branch=feature/auth
  twig-mcp call get_branch_tree '{"branch":"main"}' --repo ~/src/shop
`,

  config: `Print the configuration that registers this twig-mcp with an MCP client, or write it.

Usage: twig-mcp config <CLIENT> [--repo PATH] [--write] [--scope user|project] [--name NAME]

Clients:
  claude-desktop    claude_desktop_config.json, "mcpServers"
  claude-code       prints 'claude mcp add --scope user ...'; --scope project / --write: .mcp.json
                    at the repository root
  cursor            ~/.cursor/mcp.json (user) or .cursor/mcp.json (project), "mcpServers"
  codex             ~/.codex/config.toml ($CODEX_HOME), [mcp_servers.twig]
  vscode            the user mcp.json (user) or .vscode/mcp.json (project), "servers"

The entry runs this executable by its absolute path (a link on PATH stays the link; a Homebrew
install uses its 'bin' link). A project file is shared through git, so it runs 'twig-mcp' when
the twig-mcp on PATH is this one, else this executable's path (with a note); only a build for a
published npm package writes 'bunx twig-mcp' / 'npx -y twig-mcp'. --command overrides.
--repo and --disable given here are added to the server's arguments. For Claude Code, config says
when a twig entry is already in another scope (user, project, local) and which one Claude Code
starts; when this twig-mcp is already registered, it prints nothing to run.

--write merges the entry into the client's file: every other server, key and comment stays. An
existing twig entry gets the new command and keeps only what twig-mcp reads: its server arguments
(--repo, --disable, --max-reply-tokens, -v; not --repo in a project file) unless --repo/--disable
replace them, and in env the TWIG_MCP_* settings plus, in a user's own file, the GitHub and Jira
token and host variables. Everything else (other env variables, keys such as cwd) is dropped, and
the message lists it. The old file is copied to <file>.bak first; a file that cannot be parsed is
left alone. This is the only command that writes a file, and it writes only there.
More: docs/config-write.md.

Options:
  --write            Merge the entry into the client's configuration file
  --scope <SCOPE>    user (every project) or project (files in the repository); default: user
  --name <NAME>      Server name in the client's configuration; default: twig
  --command <PATH>   Register this command (a path, or a name looked up on PATH) instead
  --file <PATH>      Edit this configuration file instead of the client's usual one
${COMMON}

Examples:
  twig-mcp config claude-desktop --repo ~/src/shop --write
  twig-mcp config claude-code
  twig-mcp config vscode --scope project --write
`,

  doctor: `Check everything twig-mcp depends on and explain what to fix.

Usage: twig-mcp doctor [--repo PATH] [--online] [--json]

Checks the repository (from --repo or the current directory), its twig state file, twig's
repository registry and directories, whether this twig-mcp is on PATH, each MCP client's 'twig'
entry (Claude Code's user, project and local scopes, Claude Desktop, Cursor, Codex, VS Code: does
it run this twig-mcp, does its env carry this shell's GitHub and Jira settings; only read),
~/.netrc (present, parseable, not readable by others), which credential GitHub and Jira requests
would use (never the secret itself), and JIRA_HOST.
With --online it also signs in to GitHub and Jira once to prove the credentials work.

Exit status: 0 when nothing blocks use (warnings may remain), 1 when a check failed.

Options:
  --online           Also check the credentials against GitHub and Jira (network requests)
  --json             Print the checks as JSON
${COMMON}
`,

  demo: `Show what an assistant sees through twig-mcp, on a throwaway sample repository.

Usage: twig-mcp demo [--keep]

Builds a sample repository with git in a temporary directory (a main branch, two stacks with
Jira keys and PR numbers, a linked worktree, and the .twig/state.json twig would write), prints
the answers of get_current_branch, get_branch_stack, get_branch_tree and get_stack_status as the
server gives them, then how to install twig-mcp (from a clone's dist/) and register it with your
assistant. Needs git; no twig, no network, no credentials. Your own repositories and twig files
are not read. Everything it made is removed when it ends, on Ctrl-C and on error too.

Options:
  --keep             Keep the sample repository until Ctrl-C, to try 'twig-mcp call' in it
  -v, --verbose      More logging on stderr
  -h, --help         Print help
`,
};

export function helpText(topic?: Subcommand): string {
  return topic === undefined ? HELP_TEXT : TOPICS[topic];
}
