import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";

/*
 * File operations with promise signatures but synchronous bodies: on small local files a blocking
 * call costs microseconds, a thread-pool hop tens of them (~0.1 ms against ~1 ms per tool call).
 * Errors still arrive as rejections. `…IfExists` answer `undefined` for an absent path instead of
 * building an ENOENT error, which costs several times the call.
 */
export const stat = async (path: string): Promise<Stats> => statSync(path);
export const statIfExists = async (path: string) => statSync(path, { throwIfNoEntry: false });
export const lstatIfExists = async (path: string) => lstatSync(path, { throwIfNoEntry: false });
export const readlink = async (path: string): Promise<string> => readlinkSync(path);
/** The kernel's `realpath(3)`: the JavaScript one drops `link/..` by text, unlike `open`. */
export const realpath = async (path: string): Promise<string> => realpathSync.native(path);
