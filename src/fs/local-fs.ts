import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";

/*
 * The file operations of the serving path, with promise signatures but synchronous bodies. Every
 * file we touch is a small local file under `.git`, `.twig` or the user's config (special files
 * are refused before reading), for which a blocking call costs microseconds while a hop through
 * the async thread pool costs tens of them — the difference between ~0.1 ms and ~1 ms per tool
 * call. Errors still arrive as rejected promises, exactly as with `node:fs/promises`. The
 * `…IfExists` forms answer `undefined` for an absent path (a branch that is only packed, a
 * repository without twig state) instead of building an ENOENT error, which costs several times
 * the call itself.
 */
export const stat = async (path: string): Promise<Stats> => statSync(path);
export const statIfExists = async (path: string) => statSync(path, { throwIfNoEntry: false });
export const lstatIfExists = async (path: string) => lstatSync(path, { throwIfNoEntry: false });
export const readlink = async (path: string): Promise<string> => readlinkSync(path);
/**
 * The kernel's answer (`realpath(3)`): the JavaScript `realpathSync` first drops `link/..` by the
 * path's text, while `open` takes `..` from where the link leads, so the two could name different files.
 */
export const realpath = async (path: string): Promise<string> => realpathSync.native(path);
