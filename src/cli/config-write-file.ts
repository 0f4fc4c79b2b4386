/**
 * A project file sits in a cloned repository, where anything may be committed at its path or beside
 * it: a symlink to `~/.bashrc` as `.mcp.json.bak`, `/dev/zero` as `.mcp.json`, a directory symlink out
 * of the repository. So a file is read only when regular and under a cap, a project file only when its
 * real path stays in the working tree, and every file written is created afresh (exclusive, no link
 * followed, unguessable name) and renamed into place, which replaces a name without following it.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { type ToolError, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readBounded } from "../fs/bounded-read.ts";
import { describeFsError } from "../fs/cached-file.ts";
import { isInside } from "../fs/path-inside.ts";

/** Client files are a few KiB; a larger one is not a client's file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** `path` follows a symlinked dotfile to its target; `bytes` is `null` when there is no file yet. */
export interface ConfigFile {
  path: string;
  bytes: Uint8Array | null;
  text: string | null;
  /** Permission bits for the new version: the file's own, 0600 for a new one (`env` may hold tokens). */
  mode: number;
}

const invalid = (message: string, hint?: string) => err(toolError("invalid_config", message, hint));

const notRegular = (path: string, what: string) =>
  invalid(
    `${path} is ${what}, not a regular file; nothing was written`,
    "Remove it or replace it with a regular file, then run the command again (or pass --file PATH).",
  );

/** `inside`: the working tree a project file's real path must stay in; `null` for a user's own file. */
export function readConfigFile(path: string, inside: string | null): Result<ConfigFile, ToolError> {
  const target = realPath(path);
  if (inside !== null && !isInside(target, realPath(inside))) {
    return invalid(
      `${path} leads out of the repository (to ${target}); nothing was written`,
      "A project file must live in the repository: remove the symlink, or write the user's file with --scope user.",
    );
  }
  const read = readBounded(target, MAX_CONFIG_BYTES);
  switch (read.kind) {
    case "missing":
      return ok({ path: target, bytes: null, text: null, mode: 0o600 });
    case "directory":
      return notRegular(path, "a directory");
    case "special":
      return notRegular(path, "a FIFO, socket or device");
    case "too-large":
      return invalid(`${path} is over ${read.limit} bytes, too large for a client's configuration`);
    case "unreadable":
      return invalid(`cannot read ${path}: ${describeFsError(read.error)}`);
  }
  try {
    // ignoreBOM keeps a byte-order mark in the text, so it is written back as it was.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes);
    return ok({ path: target, bytes: read.bytes, text, mode: read.info.mode & 0o777 });
  } catch {
    return invalid(`${path} is not UTF-8 text`);
  }
}

/**
 * The old version to `<file>.bak`, the new renamed over the file (a crash never leaves half a config);
 * nothing when the file changed since it was read, or the backup's name holds anything but a regular file.
 */
export function replaceConfigFile(file: ConfigFile, text: string): Result<{ backup: string | null }, ToolError> {
  const backup = file.bytes === null ? null : `${file.path}.bak`;
  const created: string[] = [];
  try {
    mkdirSync(dirname(file.path), { recursive: true });
    if (backup !== null) {
      const current = readBounded(file.path, MAX_CONFIG_BYTES);
      if (current.kind !== "found" || !Buffer.from(current.bytes).equals(file.bytes as Uint8Array)) {
        return invalid(`${file.path} changed while it was being edited; nothing was written`, "Run the command again.");
      }
      const kind = entryKind(backup);
      if (kind !== null && kind !== "file") return notRegular(backup, kind);
      created.push(createFile(file.path, file.bytes as Uint8Array, file.mode));
    }
    created.push(createFile(file.path, new TextEncoder().encode(text), file.mode));
    if (backup !== null) renameSync(created[0] as string, backup);
    renameSync(created.at(-1) as string, file.path);
    return ok({ backup });
  } catch (error) {
    for (const path of created) rmSync(path, { force: true });
    return invalid(`cannot write ${file.path}: ${describeFsError(error)}`);
  }
}

/** A new file next to `beside`: exclusive and not following a link, nothing planted at the name is written through. */
function createFile(beside: string, bytes: Uint8Array, mode: number): string {
  const path = join(dirname(beside), `.${basename(beside)}.${randomBytes(8).toString("hex")}.tmp`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  const fd = openSync(path, flags, 0o600);
  try {
    fchmodSync(fd, mode);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** What is at `path` without following it: `null` for nothing, `"file"` for a regular file. */
function entryKind(path: string): string | null {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return null;
  if (info.isFile()) return "file";
  if (info.isSymbolicLink()) return "a symbolic link";
  return info.isDirectory() ? "a directory" : "a FIFO, socket or device";
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPath(parent), basename(path));
  }
}
