import { parse as parseJsoncValue } from "jsonc-parser";
import { err, ok, type Result } from "../../core/result.ts";
import { parseJsonc, plainValue } from "./jsonc.ts";
import { setJsonValue } from "./jsonc-edit.ts";
import type { LaunchCommand } from "./self-command.ts";
import { setTomlTable } from "./toml-edit.ts";

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
  return format === "toml" ? setTomlTable(text, [serversKey, name], entry) : mergeJson(text, serversKey, name, entry);
}

function mergeJson(text: string, serversKey: string, name: string, entry: ServerEntry): Result<string, string> {
  const existing = currentEntry(text, serversKey, name);
  if (!existing.ok) return existing;
  let next = text;
  if (isPlainObject(existing.value)) {
    for (const [key, value] of Object.entries(entry)) {
      const edited = setJsonValue(next, [serversKey, name, key], value);
      if (!edited.ok) return edited;
      next = edited.value;
    }
  } else {
    const edited = setJsonValue(next, [serversKey, name], entry);
    if (!edited.ok) return edited;
    next = edited.value;
  }
  return verify(text, next, serversKey, name, entry);
}

function currentEntry(text: string, serversKey: string, name: string): Result<unknown, string> {
  if (text.replace(/^\ufeff/, "").trim() === "") return ok(undefined);
  const parsed = parseJsonc(text);
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    return err(`it is not valid JSON: ${message} at line ${line}, column ${column}`);
  }
  const root = plainValue(parsed.value);
  if (!isPlainObject(root)) return err("its top level is not a JSON object");
  const servers = root[serversKey];
  return ok(isPlainObject(servers) ? servers[name] : undefined);
}

/** The edit must read back as meant, and a strict JSON file must stay strict JSON. */
function verify(
  before: string,
  after: string,
  serversKey: string,
  name: string,
  entry: ServerEntry,
): Result<string, string> {
  const parsed = parseJsonc(after);
  if (!parsed.ok) return err("the edited file would not parse; nothing was changed");
  const written = (plainValue(parsed.value) as Record<string, Record<string, Record<string, unknown>>>)[serversKey]?.[
    name
  ];
  for (const [key, value] of Object.entries(entry)) {
    if (JSON.stringify(written?.[key]) !== JSON.stringify(value)) {
      return err(`the edited file would not contain ${serversKey}.${name}.${key} as intended; nothing was changed`);
    }
  }
  if (isStrictJson(before) && !isStrictJson(after)) {
    return err("the edited file would no longer be plain JSON; nothing was changed");
  }
  return ok(after);
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

/**
 * The command and args our entry holds now, or `null` when there is no entry (or no readable
 * file: merging then reports why). Args that are not strings are left out.
 */
export function readServerEntry(
  format: "json" | "toml",
  text: string,
  serversKey: string,
  name: string,
): LaunchCommand | null {
  let root: unknown;
  try {
    root = format === "toml" ? Bun.TOML.parse(text) : parseJsoncValue(text.replace(/^\ufeff/, ""));
  } catch {
    return null;
  }
  const servers = isPlainObject(root) ? root[serversKey] : undefined;
  const entry = isPlainObject(servers) ? servers[name] : undefined;
  if (!isPlainObject(entry) || typeof entry.command !== "string") return null;
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === "string") : [];
  return { command: entry.command, args };
}
