/**
 * `~/.ssh/config`'s `HostName` for an alias (`git@github-work:o/r.git` is on github.com). Hand-written: parsers read
 * everything with no bound on includes. `Match` blocks need what this server cannot evaluate: never used.
 */
import { isAbsolute, join, normalize } from "node:path";
import type { Context } from "../core/context.ts";
import { decodeUtf8 } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { isInside } from "../fs/path-inside.ts";

/** ssh reads configs of any size; its users' are a few KiB. */
const MAX_FILE_BYTES = 256 * 1024;
/** Files read for one lookup, the top-level one included; ssh allows 16 levels of nesting. */
const MAX_FILES = 32;
const MAX_DEPTH = 8;
const MAX_GLOB_ENTRIES = 512;

/** A `HostName` and the `Host` lines (from the outermost file in) that must all match for it to apply. */
type HostNameRule = { conditions: string[][]; hostName: string };

/** ssh's lowercased alias → its `HostName`, or `null` when the config gives none (or cannot be read). */
export type SshHostNames = (alias: string) => string | null;

/** Reads `~/.ssh/config` (and what it includes) once, for as many lookups as the caller needs. */
export async function readSshHostNames(ctx: Pick<Context, "home" | "files">): Promise<SshHostNames> {
  const sshDir = join(ctx.home, ".ssh");
  const rules: HostNameRule[] = [];
  let files = 0;

  const readFile = async (path: string, outer: string[][], depth: number): Promise<void> => {
    if (files++ >= MAX_FILES) return;
    const read = await ctx.files.read(path, "ssh-config", parseSshConfig, { maxBytes: MAX_FILE_BYTES });
    if (read.kind !== "found") return;
    // `null`: inside a `Match` block, where nothing applies.
    let conditions: string[][] | null = outer;
    for (const { keyword, args } of read.value) {
      if (keyword === "host") conditions = [...outer, args];
      else if (keyword === "match") conditions = null;
      else if (keyword === "hostname" && conditions !== null && args[0] !== undefined) {
        rules.push({ conditions, hostName: args[0] });
      } else if (keyword === "include" && conditions !== null && depth < MAX_DEPTH) {
        const included = await Promise.all(args.map((pattern) => includedFiles(sshDir, ctx.home, pattern)));
        for (const path of included.flat()) await readFile(path, conditions, depth + 1);
      }
    }
  };
  await readFile(join(sshDir, "config"), [], 0);

  return (alias) => {
    const host = alias.toLowerCase();
    const rule = rules.find((r) => r.conditions.every((patterns) => hostLineMatches(host, patterns)));
    return rule === undefined ? null : expandHostName(rule.hostName, host);
  };
}

/** Each line's keyword (lowercased) and words: split at blanks (and one `=` after the keyword), `"quoted"` kept whole, from `#` on a comment. */
function parseSshConfig(bytes: Uint8Array) {
  return (decodeUtf8(bytes) ?? "").split(/\r?\n/).flatMap((line) => {
    const keyword = /^\s*([^\s=]+)\s*=?\s*/.exec(line);
    if (keyword === null || (keyword[1] as string).startsWith("#")) return [];
    const args: string[] = [];
    const pattern = /\s*(?:"([^"]*)"|([^\s"]+))/y;
    const rest = line.slice(keyword[0].length);
    for (let match = pattern.exec(rest); match !== null; match = pattern.exec(rest)) {
      if (match[2]?.startsWith("#")) break;
      args.push(match[1] ?? (match[2] as string));
    }
    return [{ keyword: (keyword[1] as string).toLowerCase(), args }];
  });
}

/** A `Host` line's verdict: some pattern matches and no negated one does. */
function hostLineMatches(host: string, patterns: readonly string[]): boolean {
  const hits = patterns.filter((pattern) => wildcardMatch(host, pattern.replace(/^!/, "")));
  return hits.length > 0 && !hits.some((pattern) => pattern.startsWith("!"));
}

/** ssh's `match_pattern` (`*`, `?`) by Bun's linear glob, its own `[…]`, `{…}` and `\` escaped. */
function wildcardMatch(text: string, pattern: string): boolean {
  return new Bun.Glob(pattern.replace(/[[\]{}\\!]/g, "\\$&")).match(text);
}

/** `%h` (the alias) and `%%` in a `HostName`; any other token is left to ssh, and the alias kept. */
function expandHostName(value: string, host: string): string | null {
  const tokens = /%(.)/g;
  if ([...value.matchAll(tokens)].some(([, token]) => token !== "h" && token !== "%")) return null;
  return value.replace(tokens, (_, token: string) => (token === "h" ? host : "%")).toLowerCase();
}

/** The files an `Include` argument names (a wildcard in the last part only). Nothing outside `~/.ssh` is read. */
async function includedFiles(sshDir: string, home: string, arg: string): Promise<string[]> {
  const path = normalize(arg.startsWith("~/") ? join(home, arg.slice(2)) : isAbsolute(arg) ? arg : join(sshDir, arg));
  if (path === sshDir || !isInside(path, sshDir)) return [];
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  const dir = path.slice(0, slash);
  const name = path.slice(slash + 1);
  if (/[*?]/.test(dir)) return [];
  if (!/[*?]/.test(name)) return [path];
  const listing = await listDirectory(dir);
  if (listing.kind !== "found") return [];
  const names = [...listing.entries.files, ...listing.entries.links].slice(0, MAX_GLOB_ENTRIES);
  return names
    .filter((entry) => !entry.startsWith(".") && wildcardMatch(entry, name))
    .sort()
    .map((entry) => join(dir, entry));
}
