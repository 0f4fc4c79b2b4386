import { isAbsolute, relative } from "node:path";
import { realpath } from "./local-fs.ts";

/** Whether `path` is `base` or lies below it, judged on the text of both (neither is touched). */
export function isInside(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Whether `path`, through whatever symbolic links lead to it, still lies inside `base` (whose own
 * links are resolved too). A path that does not resolve counts as inside: reading it finds
 * nothing, or fails on its own.
 */
export async function resolvesInside(path: string, base: string): Promise<boolean> {
  const real = await realpath(path).catch(() => null);
  return real === null || isInside(real, await realpath(base).catch(() => base));
}
