import { isAbsolute, resolve } from "node:path";
import type { ToolError } from "../core/errors.ts";
import { ok, type Result } from "../core/result.ts";
import { CachedFileReader } from "../fs/cached-file.ts";
import { discoverRepository } from "../git/discover.ts";
import type { ClientName, ConfigOptions, ConfigScope } from "./args.ts";
import { type ExistingEntry, quoteWords, updateEntry } from "./config-entry-update.ts";
import { mergeServerEntry, readServerEntry } from "./config-merge.ts";
import { CLIENT_SPECS, configPath, type Locations } from "./config-paths.ts";
import { describeLaunch, type LaunchCommand, launchCommand, shellQuote, typedCommand } from "./config-self-command.ts";
import { readConfigFile, replaceConfigFile } from "./config-write-file.ts";
import { writeErr, writeOut } from "./output.ts";
import { claudeCodeChoice, findRegistrations } from "./registrations.ts";
import { userHome } from "./runtime.ts";

/** `twig-mcp config <client>`: the snippet alone on stdout (to pipe or paste), guidance on stderr; or `--write`. */
export async function runConfig(options: ConfigOptions): Promise<number> {
  // Claude Code's user scope belongs to `claude mcp add`; writing means the project's .mcp.json.
  const scope = options.scope ?? (options.write && options.client === "claude-code" ? "project" : "user");
  if (scope === "project" && CLIENT_SPECS[options.client].projectFile === undefined) {
    const again = `twig-mcp config ${options.client}${options.write ? " --write" : ""}`;
    return writeErr(`error: ${options.client} has only a user configuration: drop --scope project (${again})\n`, 2);
  }
  const home = userHome();
  if (home === null) return writeErr("error: cannot determine the home directory (set HOME)\n", 1);
  const found = await discoverRepository(resolve(options.repo ?? "."), new CachedFileReader());
  if (options.repo !== null && !found.ok) return writeErr(`error: --repo ${options.repo}: ${found.error.message}\n`, 1);
  const projectRoot = found.ok ? found.value.workTree : null;

  const launcher = launchCommand(options.commandPath, scope);
  // The server args --repo and --disable ask for; `null` when neither was given.
  const repoArgs = options.repo === null || projectRoot === null ? [] : ["--repo", projectRoot];
  const serverArgs = [...repoArgs, ...[...options.disabled].flatMap((group) => ["--disable", group])];
  const given = serverArgs.length > 0 ? serverArgs : null;
  const launch = { command: launcher.launch.command, args: [...launcher.launch.args, ...(given ?? [])] };
  const snippet = renderSnippet(options.client, scope, options.name, launch, process.platform);
  const locations = { env: process.env, platform: process.platform, home, projectRoot };
  const path = options.file !== null ? ok(resolve(options.file)) : configPath(options.client, scope, locations);

  if (!options.write) {
    const existing = path.ok ? registered(options, scope, path.value, locations, launch) : null;
    const said = existing === null ? "" : `${existing.note}${existing.others}`;
    if (existing?.same) return writeErr(said);
    await writeOut(existing?.replace ? `${existing.replace}\n${snippet}` : snippet);
    return writeErr(`${said}${guidance(options, scope, path)}\n${launcher.note ?? ""}`);
  }
  if (options.client === "claude-code" && scope === "user" && options.file === null) {
    await writeOut(snippet);
    return writeErr(
      "Claude Code keeps user-scope servers in ~/.claude.json, a file it rewrites while it runs, so twig-mcp does not edit it.\n" +
        "Run the command above instead, or write the project's .mcp.json: twig-mcp config claude-code --write --scope project\n",
      2,
    );
  }
  if (!path.ok) return writeErr(`error: ${path.error}\n`, 2);
  // The note on the launch command follows whatever the write said, failure included.
  try {
    const spec = CLIENT_SPECS[options.client];
    const file = readConfigFile(path.value, scope === "project" && options.file === null ? projectRoot : null);
    if (!file.ok) return writeErr(describeError(file.error), 1);
    const text = file.value.text ?? "";
    const existing = readServerEntry(spec.format, text, spec.serversKey, options.name);
    const { launch: written, env, notes } = updateEntry(existing, launcher.launch, given, scope === "project");
    const claudeCode = options.client === "claude-code";
    const conflicts = claudeCode ? registered(options, scope, path.value, locations, launch).others : "";
    const changes = notes.map((note) => `  ${note}\n`).join("") + conflicts;
    const entry = serverEntry(options.client, scope, written, env ?? undefined);
    const merged = mergeServerEntry(spec.format, text, spec.serversKey, options.name, entry);
    if (!merged.ok) {
      return writeErr(
        `error: cannot update ${path.value}: ${merged.error}.\nThe file was left unchanged. Fix it, or add this by hand:\n\n${snippet}`,
        1,
      );
    }
    if (merged.value === file.value.text) {
      return writeErr(`${path.value} already registers '${options.name}' this way; nothing to change.\n${changes}`);
    }
    const replaced = replaceConfigFile(file.value, merged.value);
    if (!replaced.ok) return writeErr(describeError(replaced.error), 1);
    const backup = replaced.value.backup ? ` (previous version: ${replaced.value.backup})` : " (new file)";
    return writeErr(
      `${file.value.text === null ? "Created" : "Updated"} ${file.value.path}${backup}: ${spec.title} server '${options.name}' runs ${describeLaunch(written)}.\n${changes}${AFTERWARDS[options.client]}\n`,
    );
  } finally {
    if (launcher.note !== null) await writeErr(launcher.note);
  }
}

/**
 * What the client's files already register under the name: the note to print; for Claude Code's user
 * scope (where `claude mcp add` refuses to overwrite) the command to run first, or `same` when there
 * is nothing to run; and `others`, Claude Code's entries in its other scopes, which fight this one.
 */
function registered(options: ConfigOptions, scope: ConfigScope, path: string, at: Locations, launch: LaunchCommand) {
  const name = options.name;
  // A project file may come with a hostile clone: its words are clipped and made visible.
  const runs = (entry: ExistingEntry) => quoteWords([entry.command, ...entry.args.map(String)]);
  const runsThis = (entry: ExistingEntry) =>
    entry.command === launch.command && Bun.deepEquals(entry.args, launch.args);
  const spec = CLIENT_SPECS[options.client];
  const found = options.client === "claude-code" ? findRegistrations(at, name, ["claude-code"]) : [];
  const file = options.client === "claude-code" ? null : readConfigFile(path, null);
  const entry = file?.ok
    ? readServerEntry(spec.format, file.value.text ?? "", spec.serversKey, name)
    : (found.find((r) => r.scope === scope)?.entry ?? null);
  const userAdd = options.client === "claude-code" && scope === "user";
  const same = userAdd && entry !== null && runsThis(entry);
  const quoted = shellQuote(name, process.platform);
  let note = "";
  if (same)
    note = `Claude Code already has this twig-mcp as its user-scope server '${name}' (${path}): nothing to run.\n`;
  else if (entry !== null && userAdd) {
    note = `Claude Code already has a user-scope server '${name}' in ${path} (runs ${runs(entry)}), and 'claude mcp add' does not replace one: run both commands above, the remove and then the add.\n`;
  } else if (entry !== null)
    note = `${path} already has a server '${name}' (runs ${runs(entry)}); --write replaces it.\n`;
  const others = found.filter((r) => r.scope !== scope);
  let conflicts = others
    .map((r) => {
      const where = r.scope === "local" ? `for ${at.projectRoot}` : `in ${r.path}`;
      return `Claude Code also has a ${r.scope}-scope '${name}' ${where} (runs ${runs(r.entry)}).\n`;
    })
    .join("");
  if (others.length > 0) {
    const scopes = [scope, ...others.map((r) => r.scope)];
    const chosen = claudeCodeChoice(scopes);
    // A project's .mcp.json entry counts only once approved; until then Claude Code starts the next.
    const before = claudeCodeChoice(scopes.filter((s) => s !== "project"));
    const approval = chosen === "project" && before ? ` once you approve it, the ${before}-scope one until then` : "";
    // Claude Code's "Conflicting scopes" warning is for one name with different commands.
    const warns = others.some((r) => !runsThis(r.entry)) ? " and warns of conflicting scopes" : "";
    const removes = others.map((r) => `'claude mcp remove ${quoted} -s ${r.scope}'`).join(", then ");
    conflicts += `In ${at.projectRoot ?? "this project"} Claude Code starts the ${chosen}-scope one${approval} (local wins over project, project over user)${warns}; to keep only the ${scope}-scope one, run ${removes} in that directory.\n`;
  }
  const replace = entry !== null && userAdd && !same ? `claude mcp remove ${quoted} -s user` : undefined;
  return { note, others: conflicts, replace, same };
}

function describeError(error: ToolError): string {
  return `error: ${error.message}\n${error.hint === undefined ? "" : `${error.hint}\n`}`;
}

function guidance(options: ConfigOptions, scope: ConfigScope, path: Result<string, string>): string {
  const spec = CLIENT_SPECS[options.client];
  const lines: string[] = [];
  if (options.client === "claude-code" && scope === "user") {
    lines.push(
      "Run what is printed above to register twig-mcp for every project (Claude Code starts it in the project).",
      "For the project's shared .mcp.json instead: twig-mcp config claude-code --write",
    );
  } else if (path.ok) {
    const where = spec.format === "toml" ? "Append this to" : `Merge this into the "${spec.serversKey}" of`;
    lines.push(`${where} ${path.value}`, `or let twig-mcp do it: ${rebuildArgs(options)} --write`);
  } else {
    lines.push(`(${path.error})`);
  }
  if (options.client === "claude-desktop" && options.repo === null) {
    lines.push(
      "Claude Desktop starts servers outside your project: add --repo PATH, or name a twig-registered repository in each request.",
    );
  }
  lines.push(AFTERWARDS[options.client]);
  return lines.join("\n");
}

function rebuildArgs(options: ConfigOptions): string {
  const words = ["config", options.client];
  if (options.repo !== null) words.push("--repo", isAbsolute(options.repo) ? options.repo : resolve(options.repo));
  for (const group of options.disabled) words.push("--disable", group);
  if (options.scope !== null) words.push("--scope", options.scope);
  if (options.name !== "twig") words.push("--name", options.name);
  if (options.commandPath !== null) words.push("--command", options.commandPath);
  // Meant to be pasted into a shell: quoted so that a `$` or backtick in a path stays literal.
  return typedCommand(words);
}

/** What to do once the entry is in the client's file: restart, reload, approve. */
const AFTERWARDS: Record<ClientName, string> = {
  "claude-desktop": "Quit and reopen Claude Desktop to load it.",
  "claude-code":
    "Claude Code asks once before it starts a server from a project's .mcp.json; check with 'claude mcp list'.",
  cursor: "Cursor picks it up under Settings → MCP (toggle the server on if it is off).",
  codex: "Start a new Codex session to load it; check with 'codex mcp list'.",
  vscode: "VS Code offers to start the server from the file (or run 'MCP: List Servers').",
};

/** The server's entry as the client expects it; key order as in each client's documentation. */
function serverEntry(client: ClientName, scope: ConfigScope, launch: LaunchCommand, env?: Record<string, string>) {
  const base = { command: launch.command, args: launch.args, ...(env === undefined ? {} : { env }) };
  if (client === "vscode" || (client === "claude-code" && scope === "project")) return { type: "stdio", ...base };
  return base;
}

/** The exact text to paste: what `--write` puts in an empty file (JSON or TOML), or Claude Code's command. */
export function renderSnippet(
  client: ClientName,
  scope: ConfigScope,
  name: string,
  launch: LaunchCommand,
  platform: NodeJS.Platform,
): string {
  const spec = CLIENT_SPECS[client];
  if (client === "claude-code" && scope === "user") {
    const words = ["claude", "mcp", "add", "--scope", "user", name, "--", launch.command, ...launch.args];
    return `${words.map((word) => shellQuote(word, platform)).join(" ")}\n`;
  }
  const text = mergeServerEntry(spec.format, "", spec.serversKey, name, serverEntry(client, scope, launch));
  // An empty file always takes the entry.
  return text.ok ? text.value : "";
}
