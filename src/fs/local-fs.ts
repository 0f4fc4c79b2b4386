import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";

/*
 * Promise signatures, synchronous bodies: on small local files a blocking call costs microseconds,
 * a thread-pool hop tens of them. `…IfExists` answer `undefined` rather than build an ENOENT error.
 */
export const statIfExists = async (path: string) => statSync(path, { throwIfNoEntry: false });
export const lstatIfExists = async (path: string) => lstatSync(path, { throwIfNoEntry: false });
export const readlink = async (path: string): Promise<string> => readlinkSync(path);
/** The kernel's `realpath(3)`: the JavaScript one drops `link/..` by text, unlike `open`. */
export const realpath = async (path: string): Promise<string> => realpathSync.native(path);
