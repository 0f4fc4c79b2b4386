import { existsSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import type { ClientName } from "./args.ts";
import { AUTHOR_ENV, quoteWords } from "./config-entry-update.ts";
import { CLIENT_SPECS, type Locations } from "./config-paths.ts";
import { runsThisProgram } from "./config-self-command.ts";
import { type Check, checker } from "./doctor-check.ts";
import { claudeCodeChoice, findRegistrations } from "./registrations.ts";

const CLIENT_ORDER: ClientName[] = ["claude-code", "claude-desktop", "cursor", "codex", "vscode"];

/**
 * One check per `twig` entry in a client's files (only read): whether it starts this twig-mcp, and
 * whether its `env` carries the settings this shell has. Claude Code is started from a shell and
 * passes that shell's environment on; the others start the server with their own.
 */
export function checkRegistrations(at: Locations): Check[] {
  const found = findRegistrations(at, "twig", CLIENT_ORDER);
  if (found.length === 0) {
    const clients = CLIENT_ORDER.map((client) => CLIENT_SPECS[client].title).join(", ");
    return [
      checker("registrations", "registrations")(
        "info",
        `no 'twig' entry in ${clients}'s configuration files`,
        "`twig-mcp config <client>` prints how to register this twig-mcp (--write adds it for you).",
      ),
    ];
  }
  const chosen = claudeCodeChoice(found.filter((r) => r.client === "claude-code").map((r) => r.scope));
  // The hosts and credentials the server reads; the repository may rightly differ per client.
  const inShell = [...AUTHOR_ENV].filter((name) => name !== "TWIG_MCP_REPO" && at.env[name]);
  return found.map((r) => {
    const result = checker(`registration-${r.client}-${r.scope}`, `${CLIENT_SPECS[r.client].title} (${r.scope})`);
    const where = r.scope === "local" ? `${r.path}, for ${at.projectRoot}` : r.path;
    const runs = quoteWords([r.entry.command, ...r.entry.args.map(String)]);
    const problems: string[] = [];
    const hints: string[] = [];
    const program = resolveCommand(r.entry.command, at.projectRoot, at.env);
    if (program === null) {
      const missing = /[\\/]/.test(r.entry.command) ? "does not exist" : "is not on PATH";
      problems.push(`its command ${quoteWords([r.entry.command])} ${missing}`);
    } else if (!runsThisProgram(program, r.entry.args)) {
      const other = /^twig-mcp(\.exe|\.cmd)?$/i.test(basename(program)) ? "another twig-mcp" : "another program";
      problems.push(`it runs ${other} (${runs}), not this one`);
    }
    if (problems.length > 0) hints.push("`twig-mcp config <client>` from this twig-mcp prints what replaces it.");
    const missing = inShell.filter((name) => r.entry.env[name] === undefined);
    if (missing.length > 0 && r.client !== "claude-code") {
      problems.push(`its env lacks ${missing.join(", ")}, set in this shell`);
      hints.push("The client starts the server with its own environment: add them to the entry's env.");
    }
    if (r.client === "claude-code" && chosen !== undefined && chosen !== r.scope) {
      const approved = chosen === "project" ? " once the project's .mcp.json entry is approved" : "";
      problems.push(`not used in this project${approved}: Claude Code starts the ${chosen}-scope entry`);
      hints.push(`Keep one: claude mcp remove twig -s ${r.scope}`);
    }
    if (problems.length === 0) return result("ok", `${where}: runs this twig-mcp`);
    return result("warn", `${where}: ${problems.join("; ")}`, hints.join(" "));
  });
}

/** The file a client would start: a path as written (a project file's relative to the project), else PATH's. */
function resolveCommand(command: string, project: string | null, env: Record<string, string | undefined>) {
  if (!/[\\/]/.test(command)) return Bun.which(command, { PATH: env.PATH ?? "" });
  const path = isAbsolute(command) ? command : resolve(project ?? ".", command);
  return existsSync(path) ? path : null;
}
