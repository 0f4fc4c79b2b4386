import { isAbsolute, join, resolve } from "node:path";
import { readBounded } from "../fs/bounded-read.ts";
import { decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { realpath, stat } from "../fs/local-fs.ts";
import { readLooseRef } from "./loose-ref.ts";

/** git refuses `.git` files and `commondir` files larger than this (`max_file_size` for gitfiles). */
export const MAX_POINTER_FILE_BYTES = 1024 * 1024;

export type PointerRead = { kind: "found"; path: string } | { kind: "missing" } | { kind: "invalid"; reason: string };

/**
 * Whether `dir` looks like a git directory, by git's own test (`is_git_directory`): a HEAD that is
 * a symbolic ref into refs/ or an object id, and `objects/` and `refs/` in the common dir.
 */
export async function isGitDirectory(dir: string): Promise<boolean> {
  const head = await readLooseRef(join(dir, "HEAD"));
  if (head.kind !== "found") return false;
  if (head.value.kind === "symbolic" && !head.value.target.startsWith("refs/")) return false;
  const common = await readCommonDirFile(dir);
  if (common.kind === "invalid") return false;
  const commonDir = common.kind === "found" ? common.path : dir;
  return (await isDirectory(join(commonDir, "objects"))) && (await isDirectory(join(commonDir, "refs")));
}

/**
 * The `commondir` file of a linked worktree's git dir: the shared git dir, relative to `gitDir`
 * unless absolute. Only CR and LF are trimmed, as git does.
 */
export async function readCommonDirFile(gitDir: string): Promise<PointerRead> {
  const text = await readPointerFile(join(gitDir, "commondir"));
  if (text.kind !== "found") return text;
  const path = trimLineEnd(text.text);
  if (path === "") return { kind: "invalid", reason: `${join(gitDir, "commondir")} is empty` };
  return { kind: "found", path: isAbsolute(path) ? path : join(gitDir, path) };
}

/**
 * A `.git` file (linked worktrees, submodules, `--separate-git-dir`): `gitdir: <path>`, the path
 * relative to the file's directory unless absolute. Only CR and LF are trimmed, as git does, so a
 * path may end in spaces.
 */
export async function readGitFile(path: string, directory: string): Promise<PointerRead> {
  const text = await readPointerFile(path);
  if (text.kind !== "found") return text;
  const content = trimLineEnd(text.text);
  if (!content.startsWith("gitdir: ")) return { kind: "invalid", reason: `${path} does not start with 'gitdir: '` };
  const target = content.slice("gitdir: ".length);
  if (target === "") return { kind: "invalid", reason: `${path} names no directory` };
  return { kind: "found", path: resolve(directory, target) };
}

/** Canonical form of an existing path, or why there is none. */
export async function canonicalPath(path: string): Promise<{ ok: true; path: string } | { ok: false; cause: string }> {
  try {
    return { ok: true, path: await realpath(path) };
  } catch (error) {
    return { ok: false, cause: describeFsError(error) };
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

export type TextRead = { kind: "found"; text: string } | { kind: "missing" } | { kind: "invalid"; reason: string };

/**
 * A small pointer file git writes (`.git`, `commondir`, a worktree's `gitdir`): a regular file of at
 * most 1 MiB, as UTF-8. A FIFO, a device or a huge file is `invalid`, never read.
 */
export async function readPointerFile(path: string): Promise<TextRead> {
  const read = readBounded(path, MAX_POINTER_FILE_BYTES);
  switch (read.kind) {
    case "missing":
      return { kind: "missing" };
    case "directory":
    case "special":
      return { kind: "invalid", reason: `${path} is not a regular file` };
    case "too-large":
      return { kind: "invalid", reason: `${path} is too large` };
    case "unreadable":
      return { kind: "invalid", reason: `cannot read ${path}: ${describeFsError(read.error)}` };
  }
  const bytes = read.bytes;
  const text = decodeUtf8(bytes);
  if (text === null) return { kind: "invalid", reason: `${path} is not UTF-8` };
  return { kind: "found", text };
}

function trimLineEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === "\n" || text[end - 1] === "\r")) end--;
  return text.slice(0, end);
}
