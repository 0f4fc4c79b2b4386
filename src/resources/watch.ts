import { existsSync, type FSWatcher, watch } from "node:fs";
import { dirname, join } from "node:path";
import type { RepoLocation } from "../git/discover.ts";

/** What changed: twig's state file, or git's HEAD/branches. */
export type ChangeKind = "state" | "git";

/** Bursts of file events (git writes a lock file, then renames it) are folded into one report. */
const DEBOUNCE_MS = 100;

/** Watches a repository's twig state, HEAD and branch refs (OS notifications, no polling), debounced. */
export class RepoWatcher {
  readonly #watchers: FSWatcher[] = [];
  readonly #pending = new Set<ChangeKind>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(
    readonly repo: RepoLocation,
    readonly workTree: string,
    readonly onChange: (kinds: ReadonlySet<ChangeKind>) => void,
    readonly onError: (message: string) => void = () => {},
  ) {
    const twigDir = join(workTree, ".twig");
    // The work tree itself is watched (not recursively) only to notice `.twig` appearing.
    this.#add(workTree, false, (name) => {
      if (name === ".twig") {
        this.#watchTwigDir(twigDir);
        return "state";
      }
      return null;
    });
    if (existsSync(twigDir)) this.#watchTwigDir(twigDir);
    // A linked worktree without state of its own reads the main checkout's (src/twig/state.ts).
    const mainTwigDir = join(dirname(repo.commonDir), ".twig");
    if (repo.isLinkedWorktree && mainTwigDir !== twigDir && existsSync(mainTwigDir)) {
      this.#add(mainTwigDir, false, (name) => (name === "state.json" ? "state" : null));
    }
    const gitFiles = (name: string) => (name === "HEAD" || name === "packed-refs" ? "git" : null);
    this.#add(repo.gitDir, false, gitFiles);
    if (repo.commonDir !== repo.gitDir) this.#add(repo.commonDir, false, gitFiles);
    this.#add(join(repo.commonDir, "refs", "heads"), true, (name) => (name.endsWith(".lock") ? null : "git"));
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const watcher of this.#watchers.splice(0)) watcher.close();
  }

  #twigWatched = false;
  #watchTwigDir(dir: string): void {
    if (this.#twigWatched) return;
    this.#twigWatched = this.#add(dir, false, (name) => (name === "state.json" ? "state" : null));
  }

  #add(path: string, recursive: boolean, classify: (name: string) => ChangeKind | null): boolean {
    try {
      const watcher = watch(path, { recursive, persistent: false }, (_event, name) => {
        const kind = classify(String(name ?? ""));
        if (kind) this.#report(kind);
      });
      watcher.on("error", (error) => this.onError(`watching ${path}: ${error.message}`));
      this.#watchers.push(watcher);
      return true;
    } catch (error) {
      this.onError(`cannot watch ${path}: ${(error as Error).message}`);
      return false;
    }
  }

  #report(kind: ChangeKind): void {
    if (this.#closed) return;
    this.#pending.add(kind);
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const kinds = new Set(this.#pending);
      this.#pending.clear();
      if (!this.#closed) this.onChange(kinds);
    }, DEBOUNCE_MS);
  }
}
