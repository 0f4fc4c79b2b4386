import { isAbsolute, join, relative, sep } from "node:path";
import { lstatIfExists, realpath } from "./local-fs.ts";

/** Whether `path` is `base` or lies below it, judged on the text of both (neither is touched). */
export function isInside(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Whether `path`, through whatever symbolic links lead to it, still lies inside `base` (whose own
 * links are resolved too). A path that does not resolve counts as inside: reading it finds
 * nothing, or fails on its own. Below `base` each component is `lstat`ed first, so the usual case,
 * no link at all, costs a few `lstat`s instead of a `realpath` (several times dearer).
 */
export async function resolvesInside(path: string, base: string): Promise<boolean> {
  if (isInside(path, base) && !(await linkBelow(base, relative(base, path)))) return true;
  const real = await realpath(path).catch(() => null);
  if (real === null) return true;
  return isInside(real, await realpath(base).catch(() => base));
}

/** Whether a component of `rel` below `base` is a symbolic link; stops at the first one missing. */
async function linkBelow(base: string, rel: string): Promise<boolean> {
  let dir = base;
  for (const part of rel.split(sep)) {
    if (part === "") continue;
    dir = join(dir, part);
    const info = await lstatIfExists(dir).catch(() => undefined);
    if (info === undefined) return false;
    if (info.isSymbolicLink()) return true;
  }
  return false;
}
