import { parseArgs as parseNodeArgs } from "node:util";
import { quoteReceived } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { parseSetting } from "../core/settings.ts";
import { closeNames, orList } from "../core/suggest.ts";

const DISABLE_GROUPS = ["github", "jira", "prompts", "resources"] as const;
export type DisableGroup = (typeof DISABLE_GROUPS)[number];

const SUBCOMMANDS = ["tools", "call", "config", "doctor", "demo"] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "codex", "vscode"] as const;
export type ClientName = (typeof CLIENTS)[number];

const SCOPES = ["user", "project"] as const;
export type ConfigScope = (typeof SCOPES)[number];

export interface CommonOptions {
  repo: string | null;
  disabled: Set<DisableGroup>;
  verbosity: number;
  /** `--max-reply-tokens`: the reply budget (0 = unlimited); absent: the environment's or the default. */
  maxReplyTokens?: number;
}

export type ServeOptions = CommonOptions & { command: "serve" };
export type ToolsOptions = CommonOptions & { command: "tools"; json: boolean };
/** `args`: what followed the tool name: one JSON object, `key=value` pairs, or `-` for standard input. */
export type CallOptions = CommonOptions & { command: "call"; tool: string; args: string[]; json: boolean };
export type DoctorOptions = CommonOptions & { command: "doctor"; online: boolean; json: boolean };
/** `keep`: leave the sample repository in place until Ctrl-C, to try commands in it. */
export type DemoOptions = CommonOptions & { command: "demo"; keep: boolean };

export interface ConfigOptions extends CommonOptions {
  command: "config";
  client: ClientName;
  write: boolean;
  /** `null`: the client's default. */
  scope: ConfigScope | null;
  name: string;
  /** `--command`: what the client should run instead of this executable's own path. */
  commandPath: string | null;
  /** `--file`: the configuration file to edit instead of the client's usual one. */
  file: string | null;
}

type InfoCommand = { command: "help"; topic?: Subcommand } | { command: "version" };
type CliCommand = ServeOptions | ToolsOptions | CallOptions | ConfigOptions | DoctorOptions | DemoOptions | InfoCommand;

/** Printed, with exit code 2 (as clap does). */
type UsageError = { message: string };

const usage = (message: string) => err<UsageError>({ message });

const isOneOf = <T extends string>(list: readonly T[], word: string | undefined): word is T =>
  (list as readonly string[]).includes(word as string);

/** Flags a subcommand adds to the common ones: `true` for a switch, else the placeholder of its value. */
const COMMAND_FLAGS: Record<Subcommand, Record<string, true | string>> = {
  tools: { "--json": true },
  call: { "--json": true },
  config: { "--write": true, "--scope": "user|project", "--name": "NAME", "--command": "PATH", "--file": "PATH" },
  doctor: { "--online": true, "--json": true },
  demo: { "--keep": true },
};

const COMMON_OPTIONS = {
  repo: { type: "string" },
  disable: { type: "string", multiple: true },
  "max-reply-tokens": { type: "string" },
  verbose: { type: "boolean", short: "v", multiple: true },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

const COMMON_FLAGS = Object.entries(COMMON_OPTIONS).flatMap(([name, option]) =>
  "short" in option ? [`--${name}`, `-${option.short}`] : [`--${name}`],
);

/** Every flag of every command; which command may use which is checked on the tokens (parseArgs has no subcommands). */
const PARSE_OPTIONS = {
  ...COMMON_OPTIONS,
  ...Object.fromEntries(
    Object.values(COMMAND_FLAGS).flatMap((flags) =>
      Object.entries(flags).map(([flag, kind]) => [flag.slice(2), { type: kind === true ? "boolean" : "string" }]),
    ),
  ),
} as const;

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Parses argv (without the executable and script). Common flags may come before or after the subcommand. */
export function parseArgs(argv: readonly string[]): Result<CliCommand, UsageError> {
  // strict: false hands unknown flags back as tokens instead of throwing, for the advice below.
  const { values, tokens } = parseNodeArgs({
    args: [...argv],
    options: PARSE_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const common: CommonOptions = { repo: null, disabled: new Set(), verbosity: values.verbose?.length ?? 0 };
  const positionals: string[] = [];
  let subcommand: Subcommand | null = null;
  let helpCommand = false;
  // Every flag is checked here; the values of those that pass are then read from `values`.
  for (const token of tokens) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      // The first word names the command (`help` included); later words are its arguments.
      if (subcommand !== null || helpCommand) positionals.push(token.value);
      else if (token.value === "help") helpCommand = true;
      else if (isOneOf(SUBCOMMANDS, token.value)) subcommand = token.value;
      else return unexpected(token.value);
      continue;
    }
    const flag = token.rawName.startsWith("--") ? token.rawName : `-${token.name}`;
    const value = token.value;
    if (token.name === "repo") {
      if (value === undefined) return usage("--repo needs a path: twig-mcp --repo /path/to/repository");
      // An empty value is a host's blank setting (a Claude Desktop bundle's empty field): not set.
      if (value !== "") common.repo = value;
    } else if (token.name === "max-reply-tokens") {
      const budget = parseSetting("maxReplyTokens", value ?? "");
      if (budget === null)
        return usage(
          "--max-reply-tokens takes a whole number of tokens (0 = unlimited): twig-mcp --max-reply-tokens 40000",
        );
      common.maxReplyTokens = budget;
    } else if (token.name === "disable") {
      if (value === "") continue;
      // A mistyped flag stays a usage error (unlike TWIG_MCP_DISABLE): whoever typed it sees the message.
      const group = value === undefined ? null : disableGroup(value);
      if (group === null) {
        const got = value === undefined ? "nothing." : `${quoteReceived(value)}.${didYouMean(value, DISABLE_GROUPS)}`;
        return usage(`--disable takes one of ${DISABLE_GROUPS.join(", ")} (repeat the flag for several), got ${got}`);
      }
      common.disabled.add(group);
    } else if (!["help", "version", "verbose"].includes(token.name)) {
      const kind = subcommand === null ? undefined : COMMAND_FLAGS[subcommand][flag];
      if (kind === undefined) return unknownFlag(argv[token.index] as string, flag, subcommand);
      if (kind === true && token.inlineValue) return usage(`${flag} takes no value: twig-mcp ${subcommand} ${flag}`);
      if (kind !== true && !value) return usage(`${flag} needs a value: twig-mcp ${subcommand} ${flag} ${kind}`);
    }
  }

  const [first, ...rest] = positionals;
  if (helpCommand) {
    if (first === undefined) return ok({ command: "help" });
    return isOneOf(SUBCOMMANDS, first) ? ok({ command: "help", topic: first }) : unexpected(first);
  }
  if (values.help !== undefined)
    return ok(subcommand === null ? { command: "help" } : { command: "help", topic: subcommand });
  if (values.version !== undefined) return ok({ command: "version" });
  if (subcommand === null) return first === undefined ? ok({ command: "serve", ...common }) : unexpected(first);
  const given = values as Record<string, unknown>;
  const flag = (name: string) => given[name] === true;
  const text = (name: string) => (typeof given[name] === "string" ? (given[name] as string) : null);
  switch (subcommand) {
    case "call":
      if (first === undefined) {
        return usage(
          "'twig-mcp call' needs a tool name: twig-mcp call <tool> [json-args], e.g. twig-mcp call get_branch_stack '{\"branch\":\"main\"}' (list the tools with 'twig-mcp tools')",
        );
      }
      return ok({ command: "call", ...common, tool: first, args: rest, json: flag("json") });
    case "config": {
      const [client, extra] = positionals;
      const help = `twig-mcp config <${CLIENTS.join("|")}> [--repo PATH] [--write]`;
      if (client === undefined) return usage(`'twig-mcp config' needs a client: ${help}`);
      if (!isOneOf(CLIENTS, client)) {
        return usage(
          `unknown client '${client}'.${didYouMean(client, CLIENTS)} Clients: ${CLIENTS.join(", ")}. Usage: ${help}`,
        );
      }
      if (extra !== undefined)
        return usage(`'twig-mcp config' takes one client, got '${extra}' as well. Usage: ${help}`);
      const scope = text("scope");
      if (scope !== null && !isOneOf(SCOPES, scope)) {
        return usage(`--scope takes user or project, got '${scope}': twig-mcp config ${client} --scope project`);
      }
      const name = text("name") ?? "twig";
      if (!SERVER_NAME.test(name)) {
        return usage(
          `--name must be letters, digits, '-' or '_' (at most 64), got '${name}': twig-mcp config ${client} --name twig`,
        );
      }
      return ok({
        command: "config",
        ...common,
        client,
        write: flag("write"),
        scope,
        name,
        commandPath: text("command"),
        file: text("file"),
      });
    }
    case "demo":
      if (first !== undefined || common.repo !== null) {
        const what = common.repo !== null ? "--repo" : `arguments, got '${first}'`;
        return usage(
          `'twig-mcp demo' builds its own sample repository and takes no ${what}. Run 'twig-mcp demo --help' for usage.`,
        );
      }
      return ok({ command: "demo", ...common, keep: flag("keep") });
  }
  if (first !== undefined) {
    return usage(
      `'twig-mcp ${subcommand}' takes no arguments, got '${first}'. Run 'twig-mcp ${subcommand} --help' for usage.`,
    );
  }
  return subcommand === "tools"
    ? ok({ command: "tools", ...common, json: flag("json") })
    : ok({ command: "doctor", ...common, online: flag("online"), json: flag("json") });
}

function unexpected(word: string) {
  if (word === "serve") {
    return usage(
      "unexpected argument 'serve': serving MCP on stdio is the default, so run 'twig-mcp' with no command (see 'twig-mcp --help').",
    );
  }
  return usage(
    `unexpected argument '${word}'.${didYouMean(word, SUBCOMMANDS, "twig-mcp ")} Commands: ${SUBCOMMANDS.join(", ")}. Run 'twig-mcp --help' for usage.`,
  );
}

function unknownFlag(arg: string, flag: string, subcommand: Subcommand | null) {
  const own = subcommand === null ? [] : Object.keys(COMMAND_FLAGS[subcommand]);
  const owner = subcommand === null ? SUBCOMMANDS.find((c) => flag in COMMAND_FLAGS[c]) : undefined;
  const where = subcommand === null ? "twig-mcp" : `twig-mcp ${subcommand}`;
  let advice = didYouMean(flag, [...own, ...COMMON_FLAGS]);
  if (owner !== undefined) advice = ` ${flag} belongs to a command: twig-mcp ${owner} ${flag}`;
  return usage(`unexpected argument '${arg}'.${advice} Run '${where} --help' for usage.`);
}

function didYouMean(word: string, choices: readonly string[], prefix = ""): string {
  const guesses = closeNames(word, choices);
  return guesses.length > 0 ? ` Did you mean ${orList(guesses, (name) => prefix + name)}?` : "";
}

/** A `--disable` or `TWIG_MCP_DISABLE` word as a group, in any letter case; `null` for an unknown word. */
function disableGroup(word: string): DisableGroup | null {
  const lower = word.toLowerCase();
  return isOneOf(DISABLE_GROUPS, lower) ? lower : null;
}

/**
 * `--repo` and `--disable` from the environment (build/mcpb.ts); a flag wins; empty or an unfilled
 * `${user_config.…}` is unset. An unknown word goes to `ignored`, never an error: a bundle's free-text
 * field that stopped the server would leave the user with nothing but the client's "connection closed".
 */
export function withEnvironment<T extends CommonOptions>(
  options: T,
  env: Readonly<Record<string, string | undefined>>,
): [options: T, ignored: string[]] {
  const disabled = new Set(options.disabled);
  const ignored: string[] = [];
  const disable = setting(env.TWIG_MCP_DISABLE);
  if (disable !== null && options.disabled.size === 0) {
    for (const word of disable.split(/[\s,]+/).filter((w) => w !== "")) {
      const group = disableGroup(word);
      if (group !== null) {
        disabled.add(group);
        continue;
      }
      const guesses = closeNames(word, DISABLE_GROUPS);
      ignored.push(
        `TWIG_MCP_DISABLE: ignored ${quoteReceived(word)}${guesses.length > 0 ? ` (did you mean ${orList(guesses)}?)` : ""}; it takes a comma-separated list of ${DISABLE_GROUPS.join(", ")}`,
      );
    }
  }
  return [{ ...options, repo: options.repo ?? setting(env.TWIG_MCP_REPO), disabled }, ignored];
}

function setting(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" || /^\$\{[^}]*\}$/.test(trimmed) ? null : trimmed;
}
