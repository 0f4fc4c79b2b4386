import { basename, dirname, join, resolve } from "node:path";
import { printable, trimChars } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readBounded } from "../fs/bounded-read.ts";
import { type CachedFileReader, decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { lstatIfExists, readlink, realpath, statIfExists } from "../fs/local-fs.ts";
import { isInside } from "../fs/path-inside.ts";
import { parseConfigBool, readConfigFile } from "./config.ts";
import { fail, unsupported } from "./hints.ts";
import { GIT_SPACE } from "./packed-refs.ts";
import { type RefValue, type RepoLocation, readLooseRef } from "./refs.ts";

export type { RepoLocation };

/** May discovery follow a repository file to this path? Judged on text: looking up `//host/x` contacts the host. */
export type PointerGuard = (path: string) => Promise<boolean>;

/** A repository as found, with HEAD as discovery read it, so the call need not read the file again. */
export type DiscoveredRepo = RepoLocation & { head: RefValue };
type GitDirs = Pick<DiscoveredRepo, "gitDir" | "commonDir" | "head">;

const noRepo = (message: string) =>
  fail("no_repo", message, "Run twig-mcp inside a git repository or pass --repo PATH.");

/** Finds the repository containing `startDir` as git does; GIT_DIR is ignored, as the server was pointed here. */
export async function discoverRepository(
  startDir: string,
  files: CachedFileReader,
  guard?: PointerGuard,
): Promise<Result<DiscoveredRepo>> {
  const start = await canonicalPath(startDir);
  if (!start.ok) {
    const missing = start.error === "no such file or directory";
    return noRepo(missing ? `${startDir} does not exist` : `Cannot open ${startDir}: ${start.error}`);
  }
  if (!(await isDirectory(start.value))) return noRepo(`${startDir} is not a directory`);
  // A canonical path has no `..` or symlinks: `dirname` shortens it until the root.
  for (let dir = start.value; ; dir = dirname(dir)) {
    const dotGit = await probeDotGit(dir, guard);
    if (!dotGit.ok) return dotGit;
    if (dotGit.value !== null) return locate(dotGit.value, dir, files, guard);
    const itself = await asGitDir(dir, true, guard);
    if (!itself.ok) return itself;
    if (itself.value !== null) return locate(itself.value, null, files, guard);
    if (dirname(dir) === dir) return noRepo(`No git repository found at or above ${startDir}`);
  }
}

/** The refusal when `guard` does not let discovery follow `from` to `target`, else `null`. */
async function refused(from: string, target: string, guard?: PointerGuard): Promise<Result<never> | null> {
  if (guard === undefined || (await guard(target))) return null;
  return fail(
    "invalid_params",
    `${from} points to ${printable(target, 300)}, outside every exposed place`,
    "Its .git file, commondir or gitdir file points outside the repositories twig-mcp may read. Register that repository with `twig git add <path>` or open it as a client root to read it.",
  );
}

/** The git dir `<dir>/.git` leads to, `null` for none; as in git, a broken `.git` file stops the search. */
async function probeDotGit(dir: string, guard?: PointerGuard): Promise<Result<GitDirs | null>> {
  const path = join(dir, ".git");
  const entry = await lstatIfExists(path).catch(() => undefined);
  const linked = entry?.isSymbolicLink() === true;
  const target = linked ? await readlink(path).catch(() => null) : null;
  const linkRefused = target === null ? null : await refused(path, resolve(dir, target), guard);
  if (linkRefused) return linkRefused;
  const info = linked ? await statIfExists(path).catch(() => undefined) : entry;
  // In a canonical directory only a symlinked `.git` needs resolving.
  if (info?.isDirectory()) return asGitDir(path, !linked, guard);
  if (!info?.isFile()) return ok(null);
  // A `.git` file (linked worktrees, submodules): `gitdir: <path>`, relative to its directory.
  const content = readPointerLine(path);
  if (!content.ok) return content;
  if (content.value === null) return ok(null);
  if (!content.value.startsWith("gitdir: ")) return noRepo(`${path} does not start with 'gitdir: '`);
  if (content.value === "gitdir: ") return noRepo(`${path} names no directory`);
  const gitDir = resolve(dir, content.value.slice("gitdir: ".length));
  const fileRefused = await refused(path, gitDir, guard);
  if (fileRefused) return fileRefused;
  const found = await asGitDir(gitDir, false, guard);
  if (!found.ok || found.value !== null) return found;
  return noRepo(`${path} points to ${gitDir}, which is not a git directory`);
}

/** `path` as a git dir by git's `is_git_directory` (a valid HEAD, `objects/` and `refs/`), else `null`. */
async function asGitDir(path: string, isCanonical: boolean, guard?: PointerGuard): Promise<Result<GitDirs | null>> {
  const gitDir = isCanonical ? path : await canonicalOrNull(path);
  if (gitDir === null) return ok(null);
  const head = await readLooseRef(join(gitDir, "HEAD"));
  if (head.kind !== "found") return ok(null);
  if (head.value.kind === "symbolic" && !head.value.target.startsWith("refs/")) return ok(null);
  const pointerFile = join(gitDir, "commondir");
  const pointer = readPointerLine(pointerFile);
  if (!pointer.ok || pointer.value === "") return ok(null);
  const named = pointer.value === null ? null : resolve(gitDir, pointer.value);
  const pointerRefused = named === null ? null : await refused(pointerFile, named, guard);
  if (pointerRefused) return pointerRefused;
  const commonDir = named === null ? gitDir : await canonicalOrNull(named);
  if (commonDir === null) return ok(null);
  const hasStores = (await isDirectory(join(commonDir, "objects"))) && (await isDirectory(join(commonDir, "refs")));
  return ok(hasStores ? { gitDir, commonDir, head: head.value } : null);
}

/**
 * The work tree of a git dir found through `.git` in `dotGitOwner` or as itself, as git picks it: a linked
 * worktree's own; else none if core.bare, core.worktree (submodules), the `.git`'s directory or parent.
 */
async function locate(
  { gitDir, commonDir, head }: GitDirs,
  dotGitOwner: string | null,
  files: CachedFileReader,
  guard?: PointerGuard,
): Promise<Result<DiscoveredRepo>> {
  const config = await readConfigFile(join(commonDir, "config"), files);
  if (!config.ok) return config;
  const refStorage = config.value.get("extensions.refStorage");
  if (refStorage !== undefined && refStorage.toLowerCase() !== "files") {
    return unsupported(
      `${commonDir} stores refs in the '${refStorage}' format, which twig-mcp cannot read`,
      "twig-mcp reads the files ref backend; `git refs migrate --ref-format=files` (git 2.46+) converts the repository.",
    );
  }
  const version = Number.parseInt(config.value.get("core.repositoryFormatVersion") ?? "0", 10);
  if (version > 1) {
    return unsupported(
      `${commonDir} uses repository format version ${version}, which twig-mcp does not understand`,
      "Use a repository created by a released version of git.",
    );
  }
  const isLinkedWorktree = commonDir !== gitDir;
  let workTree = dotGitOwner;
  let place: { dir: string; configured: string } | null = null;
  if (isLinkedWorktree) {
    const link = workTree === null ? await readWorktreeLink(gitDir, files) : null;
    const linkRefused = link === null ? null : await refused(join(gitDir, "gitdir"), link.path, guard);
    if (linkRefused) return linkRefused;
    workTree ??= link?.path ?? null;
  } else if (parseConfigBool(config.value.get("core.bare")) === true) {
    workTree = null;
  } else {
    workTree ??= basename(gitDir) === ".git" ? dirname(gitDir) : null;
    const configured = config.value.get("core.worktree");
    if (configured !== undefined) {
      // core.worktree may only narrow where the repository was found: `/` would expose the whole
      // disk. Compared as text first, so a path elsewhere (a network share) is never touched.
      place = { dir: workTree ?? gitDir, configured };
      workTree = resolve(gitDir, configured);
      if (!isInside(workTree, place.dir)) return worktreeOutside(place);
    }
  }
  if (workTree === null) {
    return fail(
      "no_repo",
      `${gitDir} is a bare repository (no working tree)`,
      "twig-mcp needs a working tree: run it in a checkout (for example one made with `git worktree add`) or pass --repo PATH.",
    );
  }
  // The directory holding `.git` was reached from a canonical path: it is canonical.
  const canonical = workTree === dotGitOwner ? ok(workTree) : await canonicalPath(workTree);
  if (!canonical.ok) return noRepo(`The working tree ${workTree} cannot be opened: ${canonical.error}`);
  if (place !== null && !isInside(canonical.value, place.dir)) return worktreeOutside(place);
  return ok({ gitDir, commonDir, workTree: canonical.value, isLinkedWorktree, head });
}

function worktreeOutside({ dir, configured }: { dir: string; configured: string }): Result<never> {
  return unsupported(
    `The repository at ${dir} sets core.worktree to ${printable(configured, 300)}, which is outside it`,
    "twig-mcp reads only the directory it was given: start it (or pass --repo) in the work tree itself, or unset core.worktree with `git config --unset core.worktree`.",
  );
}

const canonicalPath = (path: string): Promise<Result<string, string>> =>
  realpath(path).then(ok, (error: unknown) => err(describeFsError(error)));

export const canonicalOrNull = (path: string): Promise<string | null> => realpath(path).catch(() => null);

const isDirectory = async (path: string) => (await statIfExists(path).catch(() => undefined))?.isDirectory() === true;

/** git refuses `.git` files and `commondir` files larger than this (`max_file_size` for gitfiles). */
const MAX_POINTER_FILE_BYTES = 1024 * 1024;

/** A pointer file (`.git`, `commondir`), `null` when missing; only CR and LF trimmed, as in git. */
function readPointerLine(path: string): Result<string | null> {
  const read = readBounded(path, MAX_POINTER_FILE_BYTES);
  if (read.kind === "missing") return ok(null);
  if (read.kind === "unreadable") return noRepo(`cannot read ${path}: ${describeFsError(read.error)}`);
  if (read.kind === "too-large") return noRepo(`${path} is too large`);
  if (read.kind !== "found") return noRepo(`${path} is not a regular file`);
  const text = decodeUtf8(read.bytes);
  if (text === null) return noRepo(`${path} is not UTF-8`);
  return ok(trimChars(text, "\r\n"));
}

/** Where a worktree's admin dir says the worktree is (`gitdir`: its `.git` file, maybe relative). */
export async function readWorktreeLink(
  adminDir: string,
  files: CachedFileReader,
): Promise<{ dotGit: string; path: string } | null> {
  const read = await files.read(join(adminDir, "gitdir"), "git:worktree-gitdir", decodeUtf8, {
    maxBytes: MAX_POINTER_FILE_BYTES,
  });
  const trimmed = read.kind === "found" && read.value !== null ? trimChars(read.value, GIT_SPACE) : "";
  if (trimmed === "") return null;
  const dotGit = resolve(adminDir, trimmed);
  return { dotGit, path: dotGit.endsWith("/.git") ? dirname(dotGit) : dotGit };
}
