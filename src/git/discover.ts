import { basename, dirname, join, resolve } from "node:path";
import { type ToolError, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { stat } from "../fs/local-fs.ts";
import { type GitConfig, parseConfigBool, readConfigFile } from "./config.ts";
import {
  canonicalPath,
  isDirectory,
  isGitDirectory,
  type PointerRead,
  readCommonDirFile,
  readGitFile,
} from "./git-dir.ts";
import type { RepoLocation } from "./location.ts";
import { readWorktreeLink } from "./worktrees.ts";

export type { RepoLocation };

const NOT_FOUND_HINT = "Run twig-mcp inside a git repository or pass --repo PATH.";
const BARE_HINT =
  "twig-mcp needs a working tree: run it in a checkout (for example one made with `git worktree add`) or pass --repo PATH.";

/**
 * Finds the repository containing `startDir` the way git does (`setup_git_directory`): in each
 * directory from `startDir` up to `/`, first a `.git` directory or `.git` file, then the directory
 * itself being a git dir. Environment variables such as GIT_DIR are deliberately ignored: the
 * server answers about the repository it was pointed at, not about its own environment.
 */
export async function discoverRepository(startDir: string, files: CachedFileReader): Promise<Result<RepoLocation>> {
  const start = await canonicalPath(startDir);
  if (!start.ok) {
    const message =
      start.cause === "no such file or directory"
        ? `${startDir} does not exist`
        : `Cannot open ${startDir}: ${start.cause}`;
    return err(toolError("no_repo", message, NOT_FOUND_HINT));
  }
  if (!(await isDirectory(start.path))) {
    return err(toolError("no_repo", `${startDir} is not a directory`, NOT_FOUND_HINT));
  }
  // Canonical paths have no `..` or symlinks, so `dirname` strictly shortens the path and the walk
  // ends at the root.
  let dir = start.path;
  for (;;) {
    const dotGit = await probeDotGit(dir);
    if (dotGit.kind === "invalid") return err(toolError("no_repo", dotGit.reason, NOT_FOUND_HINT));
    if (dotGit.kind === "found") return locate(dotGit.path, dir, files);
    if (await isGitDirectory(dir)) return locate(dir, null, files);
    const parent = dirname(dir);
    if (parent === dir) {
      return err(toolError("no_repo", `No git repository found at or above ${startDir}`, NOT_FOUND_HINT));
    }
    dir = parent;
  }
}

/**
 * `<dir>/.git`. A `.git` directory that is not a git dir is passed over (git keeps walking up), but
 * a broken `.git` file stops the search, as it does in git ("invalid gitfile format").
 */
async function probeDotGit(dir: string): Promise<PointerRead> {
  const path = join(dir, ".git");
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return (await isGitDirectory(path)) ? { kind: "found", path } : { kind: "missing" };
  if (!info?.isFile()) return { kind: "missing" };
  const target = await readGitFile(path, dir);
  if (target.kind !== "found" || (await isGitDirectory(target.path))) return target;
  return { kind: "invalid", reason: `${path} points to ${target.path}, which is not a git directory` };
}

/** Fills in the common dir and work tree of a git dir, found either through `.git` in `dotGitOwner` or as itself. */
async function locate(
  foundGitDir: string,
  dotGitOwner: string | null,
  files: CachedFileReader,
): Promise<Result<RepoLocation>> {
  const gitDir = await canonicalPath(foundGitDir);
  if (!gitDir.ok) return err(toolError("no_repo", `Cannot open ${foundGitDir}: ${gitDir.cause}`, NOT_FOUND_HINT));
  const pointer = await readCommonDirFile(gitDir.path);
  if (pointer.kind === "invalid") return err(toolError("no_repo", pointer.reason, NOT_FOUND_HINT));
  let commonDir = gitDir.path;
  if (pointer.kind === "found") {
    const common = await canonicalPath(pointer.path);
    if (!common.ok) {
      return err(
        toolError("no_repo", `${gitDir.path}/commondir names ${pointer.path}: ${common.cause}`, NOT_FOUND_HINT),
      );
    }
    commonDir = common.path;
  }
  const config = await readConfigFile(join(commonDir, "config"), files);
  if (!config.ok) return config;
  const unsupported = checkRepositoryFormat(config.value, commonDir);
  if (unsupported !== null) return err(unsupported);

  const isLinkedWorktree = commonDir !== gitDir.path;
  const workTree = await findWorkTree(gitDir.path, dotGitOwner, isLinkedWorktree ? null : config.value, files);
  if (!workTree.ok) return workTree;
  if (workTree.value === null) {
    return err(toolError("no_repo", `${gitDir.path} is a bare repository (no working tree)`, BARE_HINT));
  }
  return ok({ gitDir: gitDir.path, commonDir, workTree: workTree.value, isLinkedWorktree });
}

/**
 * The work tree of `gitDir`, `null` when bare. A linked worktree (no `mainConfig`) is its own
 * directory: git ignores the shared config's core.bare and core.worktree there (they describe the
 * main worktree), which is what lets a bare repository have linked worktrees; found from inside its
 * admin dir, it is the one the `gitdir` file names. For the main worktree core.bare wins, then
 * core.worktree (relative to the git dir; submodules whose git dir lives in the superproject's
 * `.git/modules/` use it), then the directory holding `.git`. Started inside a `.git` directory,
 * git itself knows no work tree; its parent is the obvious one.
 */
async function findWorkTree(
  gitDir: string,
  dotGitOwner: string | null,
  mainConfig: GitConfig | null,
  files: CachedFileReader,
): Promise<Result<string | null>> {
  let path: string | undefined;
  if (mainConfig === null) {
    if (dotGitOwner !== null) return ok(dotGitOwner);
    path = (await readWorktreeLink(gitDir, files))?.path;
    if (path === undefined) return ok(null);
  } else {
    if (parseConfigBool(mainConfig.get("core.bare")) === true) return ok(null);
    const configured = mainConfig.get("core.worktree");
    if (configured === undefined) return ok(dotGitOwner ?? (basename(gitDir) === ".git" ? dirname(gitDir) : null));
    path = resolve(gitDir, configured);
  }
  const canonical = await canonicalPath(path);
  if (!canonical.ok) {
    return err(toolError("no_repo", `The working tree ${path} cannot be opened: ${canonical.cause}`, NOT_FOUND_HINT));
  }
  return ok(canonical.path);
}

/** Refuses repositories whose on-disk layout this reader does not understand. */
function checkRepositoryFormat(config: GitConfig, commonDir: string): ToolError | null {
  const refStorage = config.get("extensions.refStorage");
  if (refStorage !== undefined && refStorage.toLowerCase() !== "files") {
    return toolError(
      "unsupported_repo",
      `${commonDir} stores refs in the '${refStorage}' format, which twig-mcp cannot read`,
      "twig-mcp reads the files ref backend; `git refs migrate --ref-format=files` (git 2.46+) converts the repository.",
    );
  }
  const version = Number.parseInt(config.get("core.repositoryFormatVersion") ?? "0", 10);
  if (version > 1) {
    return toolError(
      "unsupported_repo",
      `${commonDir} uses repository format version ${version}, which twig-mcp does not understand`,
      "Use a repository created by a released version of git.",
    );
  }
  return null;
}
