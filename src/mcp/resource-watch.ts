import { existsSync, type FSWatcher, lstatSync, readdirSync, watch } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { RepoLocation } from "../git/discover.ts";

/** What changed: twig's state file, or git's HEAD/branches. */
export type ChangeKind = "state" | "git";

/** Bursts of file events (git writes a lock file, then renames it) are folded into one report. */
const DEBOUNCE_MS = 100;

/** Linux only: each directory costs one of the user's shared inotify watches, and a hostile clone can hold any number. */
export const MAX_WATCHED_REF_DIRS = 256;

/**
 * Watches a repository's twig state, HEAD and branch refs, debounced. Symlinks under `refs/heads` are
 * not followed (a link back up would repeat the tree without end); past the Linux cap a warning is logged.
 */
export class RepoWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  /** The watched directories under `refs/heads` (Linux). */
  readonly #refDirs = new Set<string>();
  readonly #pending = new Set<ChangeKind>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #capped = false;

  constructor(
    readonly repo: RepoLocation,
    readonly workTree: string,
    readonly onChange: (kinds: ReadonlySet<ChangeKind>) => void,
    readonly onError: (message: string) => void = () => {},
  ) {
    const twigDir = join(workTree, ".twig");
    const stateFile = (name: string) => (name === "state.json" ? "state" : null);
    // The work tree itself is watched (not recursively) only to notice `.twig` appearing.
    this.#add(workTree, (name) => {
      if (name !== ".twig") return null;
      this.#add(twigDir, stateFile);
      return "state";
    });
    if (existsSync(twigDir)) this.#add(twigDir, stateFile);
    // A linked worktree without state of its own reads the main checkout's (src/twig/state.ts).
    const mainTwigDir = join(dirname(repo.commonDir), ".twig");
    if (repo.isLinkedWorktree && existsSync(mainTwigDir)) this.#add(mainTwigDir, stateFile);
    const gitFiles = (name: string) => (name === "HEAD" || name === "packed-refs" ? "git" : null);
    this.#add(repo.gitDir, gitFiles);
    this.#add(repo.commonDir, gitFiles);
    const heads = join(repo.commonDir, "refs", "heads");
    if (process.platform === "linux") this.#watchRefTree(heads);
    else if (isPlainDirectory(heads)) this.#add(heads, refChange, true);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
  }

  /** Watches `top` and the directories below it, breadth first, while the cap allows. */
  #watchRefTree(top: string): void {
    const queue = [top];
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
      if (this.#watchers.has(dir) || !isPlainDirectory(dir)) continue;
      if (this.#refDirs.size >= MAX_WATCHED_REF_DIRS) {
        const warning = `more than ${MAX_WATCHED_REF_DIRS} directories under ${top}: branches in the others are not watched`;
        if (!this.#capped) this.onError(warning);
        this.#capped = true;
        return;
      }
      const watched = this.#add(dir, (name) => {
        // A new `feature/` is watched; a removed one is let go, so that it is watched again if made anew.
        const child = join(dir, name);
        if (isPlainDirectory(child)) this.#watchRefTree(child);
        else this.#unwatchRefDir(child);
        return refChange(name);
      });
      if (!watched) continue;
      this.#refDirs.add(dir);
      try {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory()) queue.push(join(dir, entry.name));
        }
      } catch {
        // Gone or unreadable since it was watched: nothing below it to watch.
      }
    }
  }

  #unwatchRefDir(dir: string): void {
    for (const path of this.#refDirs) {
      if (path !== dir && !path.startsWith(dir + sep)) continue;
      this.#watchers.get(path)?.close();
      this.#watchers.delete(path);
      this.#refDirs.delete(path);
    }
  }

  /** Watches `path` unless it is already watched; `false` if it cannot be. */
  #add(path: string, classify: (name: string) => ChangeKind | null, recursive = false): boolean {
    if (this.#watchers.has(path)) return true;
    try {
      const watcher = watch(path, { recursive, persistent: false }, (_event, name) => {
        const kind = this.#closed ? null : classify(String(name ?? ""));
        if (kind) this.#report(kind);
      });
      watcher.on("error", (error) => this.onError(`watching ${path}: ${error.message}`));
      this.#watchers.set(path, watcher);
      return true;
    } catch (error) {
      this.onError(`cannot watch ${path}: ${(error as Error).message}`);
      return false;
    }
  }

  #report(kind: ChangeKind): void {
    this.#pending.add(kind);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      const kinds = new Set(this.#pending);
      this.#pending.clear();
      if (!this.#closed) this.onChange(kinds);
    }, DEBOUNCE_MS);
  }
}

/** A change under `refs/heads`: any but git's lock files, which come and go around each update. */
function refChange(name: string): ChangeKind | null {
  return name.endsWith(".lock") ? null : "git";
}

/** A directory reached without following a symbolic link. */
function isPlainDirectory(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
