import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";

// Promise signatures, synchronous bodies: a blocking call on a small local file beats a thread-pool hop.
export const statIfExists = async (path: string) => statSync(path, { throwIfNoEntry: false });
export const lstatIfExists = async (path: string) => lstatSync(path, { throwIfNoEntry: false });
export const readlink = async (path: string): Promise<string> => readlinkSync(path);
/** The kernel's `realpath(3)`: the JavaScript one drops `link/..` by text, unlike `open`. */
export const realpath = async (path: string): Promise<string> => realpathSync.native(path);
