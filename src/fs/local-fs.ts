import { type Dirent, lstatSync, readdirSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";

/**
 * The file operations of the serving path, with promise signatures but synchronous bodies. Every
 * file we touch is a small local file under `.git`, `.twig` or the user's config (special files
 * are refused before reading), for which a blocking call costs microseconds while a hop through
 * the async thread pool costs tens of them — the difference between ~0.1 ms and ~1 ms per tool
 * call. Errors still arrive as rejected promises, exactly as with `node:fs/promises`.
 */
export async function stat(path: string): Promise<Stats> {
  return statSync(path);
}

/**
 * `stat`/`lstat` for paths that are often absent (a branch that is only packed, a repository
 * without twig state): `undefined` instead of an ENOENT error, which costs several times the
 * call itself to build. Other failures still reject.
 */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  return statSync(path, { throwIfNoEntry: false });
}

export async function lstatIfExists(path: string): Promise<Stats | undefined> {
  return lstatSync(path, { throwIfNoEntry: false });
}

export async function readlink(path: string): Promise<string> {
  return readlinkSync(path);
}

export async function realpath(path: string): Promise<string> {
  return realpathSync(path);
}

export function readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
export function readdir(path: string, options: { encoding: "buffer" }): Promise<Buffer[]>;
export async function readdir(path: string, options?: object): Promise<unknown[]> {
  return readdirSync(path, options as Parameters<typeof readdirSync>[1]) as unknown[];
}
