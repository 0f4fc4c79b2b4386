import { join } from "node:path";
import type { Context } from "../core/context.ts";
import { err, ok, type Result } from "../core/result.ts";
import { decodeUtf8 } from "../fs/cached-file.ts";

export interface NetrcEntry {
  /** `null` for the `default` entry. */
  machine: string | null;
  login: string;
  password: string;
  account?: string;
}

/** The full `.netrc` grammar; every file twig reads correctly gives the same answer, twig's quirks are not kept. */
export function parseNetrc(text: string): NetrcEntry[] {
  const entries: NetrcEntry[] = [];
  const tokens = tokenize(text);
  let current: (Partial<NetrcEntry> & Pick<NetrcEntry, "machine">) | null = null;
  const flush = () => {
    if (current?.login !== undefined || current?.password !== undefined)
      entries.push({ login: "", password: "", ...current });
    current = null;
  };
  for (let i = 0; i < tokens.length; i++) {
    const word = (tokens[i] as Token).value;
    const next = tokens[i + 1];
    if (word === "machine" || word === "default") {
      flush();
      if (word === "default") current = { machine: null };
      else if (next === undefined) return entries;
      else [current, i] = [{ machine: next.value }, i + 1];
    } else if (word === "login" || word === "password" || word === "account") {
      if (next !== undefined && current) current[word] = next.value;
      i++;
    } else if (word === "macdef") {
      // A macro body runs to the first empty line; its words are not netrc tokens.
      const bodyEnd = next ? text.indexOf("\n\n", next.end) : -1;
      const stop = bodyEnd === -1 ? text.length : bodyEnd;
      for (i++; i + 1 < tokens.length && (tokens[i + 1] as Token).start < stop; ) i++;
    }
  }
  flush();
  return entries;
}

type Token = { value: string; start: number; end: number };

/** Words and `"quoted values"`. Closing quote stepped over by hand, nothing captured: no backtracking per escape. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /#[^\n]*|"(?:\\.?|[^"\\])*|(?:\\.?|[^\s\\])+/gs;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const [word] = match;
    if (word.startsWith("#")) continue;
    const quoted = word.startsWith('"');
    if (quoted && text[pattern.lastIndex] === '"') pattern.lastIndex++;
    const value = (quoted ? word.slice(1) : word).replace(/\\(.)/gs, "$1");
    tokens.push({ value, start: match.index, end: pattern.lastIndex });
  }
  return tokens;
}

/** The first complete entry for the first of `machines` that has one (case-insensitively), else `default`. */
export function findNetrcEntry(entries: readonly NetrcEntry[], machines: readonly string[]): NetrcEntry | null {
  const complete = (e: NetrcEntry) => e.login !== "" && e.password !== "";
  const named = (machine: string) =>
    entries.find((e) => e.machine?.toLowerCase() === machine.toLowerCase() && complete(e));
  return machines.map(named).find(Boolean) ?? entries.find((e) => e.machine === null && complete(e)) ?? null;
}

/** A `.netrc` holds a few lines per host; past this it is not one (and tokenizing it would stall the server). */
export const MAX_NETRC_BYTES = 1024 * 1024;

export function netrcPath(ctx: Pick<Context, "home">): string {
  return join(ctx.home, ".netrc");
}

/** Looks `machines` up in `<home>/.netrc`; a missing file is no entry; errors name the file, never its content. */
export async function lookupNetrc(
  ctx: Pick<Context, "home" | "files">,
  machines: readonly string[],
): Promise<Result<NetrcEntry | null, string>> {
  const path = netrcPath(ctx);
  const parse = (bytes: Uint8Array) => {
    const text = decodeUtf8(bytes);
    return text === null ? null : parseNetrc(text);
  };
  const read = await ctx.files.read(path, "netrc", parse, { maxBytes: MAX_NETRC_BYTES });
  if (read.kind === "missing") return ok(null);
  if (read.kind === "unreadable") return err(`Cannot read ${path}: ${read.cause}`);
  return read.value === null ? err(`${path} is not valid UTF-8`) : ok(findNetrcEntry(read.value, machines));
}
