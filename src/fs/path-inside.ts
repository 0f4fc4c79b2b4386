import { isAbsolute, join, relative, sep } from "node:path";
import { lstatIfExists, realpath } from "./local-fs.ts";

/** Whether `path` is `base` or lies below it, judged on the text of both (neither is touched). */
export function isInside(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Whether `path`, links followed, lies inside `base`; one that does not resolve counts (reading it fails anyway). */
export async function resolvesInside(path: string, base: string): Promise<boolean> {
  if (await plainBelow(path, base)) return true;
  const real = await realpath(path).catch(() => null);
  return real === null || isInside(real, await realpath(base).catch(() => base));
}

/** `path` below `base` by text with no link between: a few `lstat`s cost less than two `realpath`s. */
async function plainBelow(path: string, base: string): Promise<boolean> {
  // `relative` drops `link/..` by its text, but the kernel takes `..` from where the link leads.
  if (path.split(sep).includes("..")) return false;
  const rel = relative(base, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return false;
  let at = base;
  for (const name of rel.split(sep)) {
    at = join(at, name);
    const entry = await lstatIfExists(at).catch(() => null);
    if (entry === null || entry?.isSymbolicLink()) return false;
    if (entry === undefined) return true;
  }
  return true;
}
