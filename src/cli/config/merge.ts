import { err, type Result } from "../../core/result.ts";
import type { ExistingEntry } from "./entry-update.ts";
import { plainValue, setJsonValue } from "./jsonc.ts";
import { setTomlTable } from "./toml.ts";

export type ServerEntry = Record<string, string | string[] | Record<string, string>>;

/**
 * Puts our server entry, whole, into a client's configuration text; everything else is left as
 * written. The edit must read back as meant, and a strict JSON file must stay strict JSON;
 * otherwise nothing is written.
 */
export function mergeServerEntry(
  format: "json" | "toml",
  text: string,
  serversKey: string,
  name: string,
  entry: ServerEntry,
): Result<string, string> {
  const next =
    format === "toml" ? setTomlTable(text, [serversKey, name], entry) : setJsonValue(text, [serversKey, name], entry);
  if (!next.ok) return next;
  if (!Bun.deepEquals(entryIn(format, next.value, serversKey, name), entry)) {
    return err(`the edited file would not contain ${serversKey}.${name} as intended; nothing was changed`);
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

/** The value under `serversKey.name` (own keys only); `undefined` when absent or when the file does not parse. */
function entryIn(format: "json" | "toml", text: string, serversKey: string, name: string): unknown {
  try {
    let node = format === "json" ? plainValue(text) : Bun.TOML.parse(text);
    for (const key of [serversKey, name])
      node = isPlainObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
    return node;
  } catch {
    return undefined;
  }
}

/** Our entry as it is now, or `null` when there is none (or it has no command). */
export function readServerEntry(
  format: "json" | "toml",
  text: string,
  serversKey: string,
  name: string,
): ExistingEntry | null {
  const entry = entryIn(format, text, serversKey, name);
  if (!isPlainObject(entry) || typeof entry.command !== "string") return null;
  const { command, args, env, type: _type, ...others } = entry;
  return {
    command,
    args: Array.isArray(args) ? args : [],
    env: isPlainObject(env) ? env : {},
    otherKeys: Object.keys(others),
  };
}
