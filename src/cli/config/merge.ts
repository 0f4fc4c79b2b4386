import { err, ok, type Result } from "../../core/result.ts";
import { plainValue, setJsonValue } from "./jsonc.ts";
import type { LaunchCommand } from "./self-command.ts";
import { lookup, setTomlTable } from "./toml.ts";

export type ServerEntry = Record<string, string | string[]>;

/**
 * Puts our server entry into a client's configuration text. A new entry is inserted whole; an
 * existing one gets our keys (`command`, `args`, `type`) replaced one by one, so keys the user
 * added to it (`env` with JIRA_HOST, a timeout) survive. Everything else is left as written.
 */
export function mergeServerEntry(
  format: "json" | "toml",
  text: string,
  serversKey: string,
  name: string,
  entry: ServerEntry,
): Result<string, string> {
  let next: Result<string, string> = ok(text);
  if (format === "toml") next = setTomlTable(text, [serversKey, name], entry);
  else {
    // A file that does not parse has no entry here; setJsonValue then says what is wrong with it.
    const edits: Array<[string[], unknown]> = isPlainObject(entryIn("json", text, serversKey, name))
      ? Object.entries(entry).map(([key, value]) => [[serversKey, name, key], value])
      : [[[serversKey, name], entry]];
    for (const [path, value] of edits) if (next.ok) next = setJsonValue(next.value, path, value);
  }
  if (!next.ok) return next;
  // The edit must read back as meant, and a strict JSON file must stay strict JSON; otherwise nothing is written.
  const written = entryIn(format, next.value, serversKey, name);
  for (const [key, value] of Object.entries(entry)) {
    if (!isPlainObject(written) || JSON.stringify(written[key]) !== JSON.stringify(value)) {
      return err(`the edited file would not contain ${serversKey}.${name}.${key} as intended; nothing was changed`);
    }
  }
  if (format === "json" && isStrictJson(text) && !isStrictJson(next.value)) {
    return err("the edited file would no longer be plain JSON; nothing was changed");
  }
  return next;
}

function isStrictJson(text: string): boolean {
  try {
    JSON.parse(text.replace(/^\ufeff/, "") || "{}");
    return true;
  } catch {
    return false;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value under `serversKey.name`; `undefined` when absent or when the file does not parse. */
function entryIn(format: "json" | "toml", text: string, serversKey: string, name: string): unknown {
  try {
    return lookup(format === "json" ? plainValue(text) : Bun.TOML.parse(text), [serversKey, name]);
  } catch {
    return undefined;
  }
}

/** The command and args our entry holds now (string args only), or `null` when there is none. */
export function readServerEntry(
  format: "json" | "toml",
  text: string,
  serversKey: string,
  name: string,
): LaunchCommand | null {
  const entry = entryIn(format, text, serversKey, name);
  if (!isPlainObject(entry) || typeof entry.command !== "string") return null;
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === "string") : [];
  return { command: entry.command, args };
}
