import { clip, escapeInvisibles, plainText } from "../core/plain-text.ts";
import { parseArgs } from "./args.ts";
import type { LaunchCommand } from "./config-self-command.ts";

const SERVER_FLAG = /^(?:--repo|--disable|--max-reply-tokens|--verbose|-v+)(?:=|$)/;
const VALUE_FLAG = /^(?:--repo|--disable|--max-reply-tokens)$/;

/**
 * Not for a project file: which host gets the user's tokens or where credentials are read from (an
 * author's file would send them to the author), the author's own tokens (the assistant would act as
 * them), the repository.
 */
export const AUTHOR_ENV = new Set([
  ...["GH_HOST", "GITHUB_API_URL", "GITHUB_SERVER_URL", "GH_CONFIG_DIR", "JIRA_HOST", "TWIG_MCP_REPO"],
  ...["GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"],
  ...["JIRA_EMAIL", "JIRA_USERNAME", "JIRA_API_TOKEN", "JIRA_PERSONAL_TOKEN"],
]);

const SERVER_ENV = new Set([
  ...AUTHOR_ENV,
  ...["TWIG_MCP_DISABLE", "TWIG_MCP_MAX_REPLY_TOKENS", "TWIG_MCP_HTTP_TIMEOUT_MS", "TWIG_MCP_GITHUB_RETRIES"],
  ...["TWIG_MCP_GITHUB_RETRY_DELAY_MS", "TWIG_MCP_GITHUB_RATE_LIMIT_SECOND_MS"],
]);

export interface ExistingEntry {
  command: string;
  args: unknown[];
  env: Record<string, unknown>;
  otherKeys: string[];
}

/** The server's flags (with values it accepts) from the first flag on; before it is the launcher's, replaced. */
export function serverArgsOf(args: readonly unknown[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  const start = args.findIndex((arg) => typeof arg === "string" && SERVER_FLAG.test(arg));
  for (let i = start === -1 ? args.length : start; i < args.length; i++) {
    const words = [args[i]];
    if (typeof words[0] === "string" && VALUE_FLAG.test(words[0]) && i + 1 < args.length) words.push(args[++i]);
    const strings = words.map((word) => (typeof word === "string" ? word : JSON.stringify(word)));
    (isServerFlag(words) ? kept : dropped).push(...strings);
  }
  return { kept, dropped };
}

/** One flag (and its value) as the server accepts it. */
function isServerFlag(words: unknown[]): boolean {
  if (!words.every(isPlainWord)) return false;
  const [flag, value] = words as [string, string | undefined];
  if (!SERVER_FLAG.test(flag) || value?.startsWith("-") || (VALUE_FLAG.test(flag) && value === undefined)) return false;
  const parsed = parseArgs(words as string[]);
  return parsed.ok && parsed.value.command === "serve";
}

/** A string a terminal or an approval dialog shows as it is: no control, bidi or invisible character. */
function isPlainWord(word: unknown): word is string {
  return typeof word === "string" && !/[\n\t]/.test(word) && plainText(word) === word;
}

/**
 * The entry to write over `existing`, and notes on what changed. Server args there are kept unless
 * some are `given`; of `env` only what the server reads (in a project file, not AUTHOR_ENV); other
 * keys (`cwd`, `envFile`, …) go: an author could have put anything there, and the user approves it whole.
 */
export function updateEntry(
  existing: ExistingEntry | null,
  launcher: LaunchCommand,
  given: readonly string[] | null,
  projectFile: boolean,
): { launch: LaunchCommand; env: Record<string, string> | null; notes: string[] } {
  const before = serverArgsOf(existing?.args ?? []);
  // A project file's `--repo` was written by whoever committed it: the user names one anew. (A kept
  // flag's value never starts with `-`, so a word after `--repo` is its value.)
  const planted = (arg: string, i: number, all: readonly string[]) =>
    projectFile && (/^--repo(=|$)/.test(arg) || all[i - 1] === "--repo");
  const plantedRepo = before.kept.filter(planted);
  before.kept = before.kept.filter((arg, i, all) => !planted(arg, i, all));
  const server = given ?? before.kept;
  const launch = { command: launcher.command, args: [...launcher.args, ...server] };
  const notes: string[] = [];
  if (existing === null) return { launch, env: null, notes };
  const start = existing.args.length - before.kept.length - before.dropped.length - plantedRepo.length;
  const was = quoteWords([existing.command, ...existing.args.slice(0, start).map(String)]);
  const now = quoteWords([launcher.command, ...launcher.args]);
  if (was !== now) notes.push(`command was ${was}, now ${now}`);
  if (given === null && before.kept.length > 0) {
    notes.push(
      `kept the server arguments already there: ${quoteWords(before.kept)} (pass --repo or --disable to replace them)`,
    );
  } else if (given !== null && quoteWords(before.kept) !== quoteWords(server)) {
    const describe = (args: readonly string[]) => (args.length === 0 ? "none" : quoteWords(args));
    notes.push(`server arguments were ${describe(before.kept)}, now ${describe(server)}`);
  }
  const allowed = (key: string) => SERVER_ENV.has(key) && !(projectFile && AUTHOR_ENV.has(key));
  const kept = Object.entries(existing.env).filter(
    (pair): pair is [string, string] => allowed(pair[0]) && isPlainWord(pair[1]),
  );
  const droppedEnv = Object.keys(existing.env).filter((key) => !kept.some(([name]) => name === key));
  if (before.dropped.length > 0) notes.push(`dropped arguments twig-mcp does not take: ${quoteWords(before.dropped)}`);
  if (plantedRepo.length > 0) {
    notes.push(
      `dropped ${quoteWords(plantedRepo)}: a project file does not choose the repository (pass --repo to set one)`,
    );
  }
  if (droppedEnv.length > 0) {
    const why = projectFile
      ? "twig-mcp does not read them, or a project file must not set credentials or the repository"
      : "twig-mcp does not read them";
    notes.push(`dropped env variables: ${quoteWords(droppedEnv)} (${why})`);
  }
  if (existing.otherKeys.length > 0) notes.push(`dropped entry keys: ${quoteWords(existing.otherKeys)}`);
  return { launch, env: kept.length > 0 ? Object.fromEntries(kept) : null, notes };
}

/** Words as typed in a shell: quoted (JSON-style) only when they need it; others' words clipped and made visible. */
export function quoteWords(args: readonly string[]): string {
  return args
    .map((arg) => (/^[\w/.:=@%+,-]+$/.test(arg) ? clip(arg, 200) : escapeInvisibles(JSON.stringify(clip(arg, 200)))))
    .join(" ");
}
