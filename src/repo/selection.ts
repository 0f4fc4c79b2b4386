import { isAbsolute, resolve } from "node:path";
import type { Context, RepoSelector } from "../core/context.ts";
import { printable } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { isInside } from "../fs/path-inside.ts";
import { canonicalOrNull, discoverRepository, type PointerGuard, type RepoLocation } from "../git/discover.ts";
import { fail } from "../git/hints.ts";
import { listLinkedWorktrees } from "../git/worktrees.ts";
import { loadRegistry } from "../twig/registry.ts";

/** A `repo` argument is repeated in errors up to this length: long enough for any real path. */
const NAME_SHOWN = 300;

/**
 * Which repository a call is about: `--repo`, else the first MCP root in a repository (Claude
 * Desktop starts servers elsewhere), else the working directory's. Another only if exposed.
 */
export class ExposedRepoSelector implements RepoSelector {
  #roots: string[] = [];
  #rootRepo: string | null = null;
  #pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: Pick<Context, "files" | "dirs" | "platform" | "log">,
    private readonly startup: Result<string>,
    private readonly explicit: boolean,
  ) {}

  waitFor(loading: Promise<unknown>): void {
    this.#pending = loading.catch(() => {});
  }

  async setRoots(directories: readonly string[]): Promise<void> {
    const roots: string[] = [];
    let rootRepo: string | null = null;
    for (const directory of directories) {
      const canonical = await canonicalOrNull(directory);
      if (canonical === null) continue;
      roots.push(canonical);
      if (rootRepo !== null) continue;
      const found = await discoverRepository(canonical, this.ctx.files);
      if (found.ok) rootRepo = found.value.workTree;
    }
    this.#roots = roots;
    this.#rootRepo = rootRepo;
    const repo = this.#default();
    this.ctx.log.info(
      `client roots: ${roots.join(", ") || "(none)"}; default repository ${repo.ok ? repo.value : "(none)"}`,
    );
  }

  #default(): Result<string> {
    return !this.explicit && this.#rootRepo !== null ? ok(this.#rootRepo) : this.startup;
  }

  async select(arg: string | undefined): Promise<Result<string>> {
    await this.#pending;
    if (arg === undefined || arg === "") return this.#default();
    if (isAbsolute(arg)) return this.#selectPath(arg);
    if (/[\\/]/.test(arg) || arg === "." || arg === "..") {
      return invalid(
        `repo '${printable(arg, NAME_SHOWN)}' is neither a registered repository name nor an absolute path`,
        "Pass a name from `list_repositories`, or an absolute path inside a registered repository, a client root or the default repository.",
      );
    }
    return this.#selectName(arg);
  }

  async #selectName(name: string): Promise<Result<string>> {
    const registry = await loadRegistry(this.ctx);
    if (!registry.ok) return registry;
    const matches = registry.value.filter((entry) => entry.name === name);
    if (matches.length === 0) {
      const names = [...new Set(registry.value.map((entry) => entry.name))];
      return invalid(
        `No repository named '${printable(name, NAME_SHOWN)}' is registered with twig`,
        names.length > 0
          ? `Registered repositories: ${names.join(", ")}. An absolute path inside one of them also works.`
          : "No repositories are registered: register it with `twig git add <path>`, open it as a client root, or start twig-mcp in it (or with --repo PATH).",
      );
    }
    if (matches.length > 1) {
      return invalid(
        `Repository name '${name}' is ambiguous: ${matches.map((entry) => entry.path).join(", ")}`,
        "Pass the absolute path of the one you mean.",
      );
    }
    const path = (matches[0] as { path: string }).path;
    const label = `Registered repository '${name}' at ${path}`;
    // A moved or deleted checkout is the registry's to fix, not "run inside a git repository".
    if ((await canonicalOrNull(path)) === null) {
      return fail(
        "repo_missing",
        `${label} no longer exists`,
        `If it moved, register the new place with \`twig git add <path>\` (and remove '${name}' from twig's registry); otherwise pass another name from \`list_repositories\`.`,
      );
    }
    const found = await this.#discover(path, label);
    if (found.ok) return ok(found.value.workTree);
    if (found.error.code !== "no_repo") return found;
    return err({
      ...found.error,
      hint: `Re-register the repository's checkout with \`twig git add <path>\`, or pass another name from \`list_repositories\`.`,
    });
  }

  async #selectPath(path: string): Promise<Result<string>> {
    const bases = await this.#exposedBases();
    const canonical = await canonicalOrNull(path);
    // Only called missing inside an exposed place: elsewhere answers must not tell what exists.
    const exposed = bases.some((base) => isInside(canonical ?? resolve(path), base));
    if (canonical !== null && exposed) return this.#openInside(canonical, path, bases);
    const shown = printable(path, NAME_SHOWN);
    if (exposed) return invalid(`repo path ${shown} does not exist`, "Pass an existing directory.");
    const linked = canonical === null ? null : await this.#linkedWorktreeAt(canonical, bases);
    if (canonical !== null && linked !== null)
      return this.#openInside(canonical, path, [...bases, linked.path], linked);
    return invalid(
      `repo path ${shown} is not inside a twig-registered repository, a client root, the default repository, or a linked worktree of one of them`,
      "Use `list_repositories` for the repositories twig-mcp may read, or register this one with `twig git add <path>`.",
    );
  }

  /** Client roots, the default repository and twig's registry, canonical. */
  async #exposedBases(): Promise<string[]> {
    const current = this.#default();
    const bases = current.ok ? [...this.#roots, current.value] : [...this.#roots];
    const registry = await loadRegistry(this.ctx);
    if (registry.ok) {
      for (const entry of registry.value) bases.push((await canonicalOrNull(entry.path)) ?? entry.path);
    }
    return bases;
  }

  /** The linked worktree of an exposed repository `path` lies in, compared as text (only `path` is touched). */
  async #linkedWorktreeAt(path: string, bases: readonly string[]): Promise<LinkedWorktree | null> {
    for (const repo of await this.#reposAt(bases)) {
      const linked = await listLinkedWorktrees(repo, this.ctx.files);
      if (!linked.ok) continue;
      const match = linked.value.find((worktree) => isInside(path, worktree.path));
      if (match !== undefined) return { path: match.path, gitDir: match.gitDir, commonDir: repo.commonDir };
    }
    return null;
  }

  /**
   * Opens the repository at `path` only if its work tree, git dir and common dir are exposed too, and is the
   * worktree `linked` it was let in as: a `.git`, `gitdir` file or core.worktree can point anywhere.
   */
  async #openInside(
    path: string,
    label: string,
    bases: readonly string[],
    linked?: LinkedWorktree,
  ): Promise<Result<string>> {
    const inside = (dir: string, places: readonly string[]) => places.some((place) => isInside(dir, place));
    // Widened by the exposed repositories' git and common dirs only once something points outside.
    const places = [...bases];
    let widened = false;
    const allowed = async (dir: string): Promise<boolean> => {
      if (!inside(dir, places) && !widened) {
        widened = true;
        for (const repo of await this.#reposAt(bases)) places.push(repo.gitDir, repo.commonDir);
      }
      return inside(dir, places);
    };
    const found = await this.#discover(path, label, allowed);
    if (!found.ok) return found;
    const { workTree, gitDir, commonDir } = found.value;
    if (linked !== undefined && (gitDir !== linked.gitDir || commonDir !== linked.commonDir)) {
      return invalid(
        `repo path ${printable(label, NAME_SHOWN)} is not the linked worktree its repository records there`,
        "Pass the path of a repository twig-mcp may read; `list_repositories` lists them.",
      );
    }
    let outside = inside(workTree, bases) ? undefined : workTree;
    for (const dir of [gitDir, commonDir]) if (outside === undefined && !(await allowed(dir))) outside = dir;
    if (outside === undefined) return ok(workTree);
    // Both paths may come from a hostile clone (a `.git` file, core.worktree): shown printable only.
    const [shownLabel, shownOutside] = [printable(label, NAME_SHOWN), printable(outside, NAME_SHOWN)];
    this.ctx.log.info(`refused ${shownLabel}: its repository's ${shownOutside} is outside every exposed place`);
    return invalid(
      `repo path ${shownLabel} is a repository whose files are at ${shownOutside}, outside every exposed place`,
      "Its .git file or core.worktree points outside the repositories twig-mcp may read. Register that repository with `twig git add <path>` or open it as a client root to read it.",
    );
  }

  async #reposAt(bases: readonly string[]): Promise<RepoLocation[]> {
    const found = await Promise.all(bases.map((base) => discoverRepository(base, this.ctx.files)));
    return found.flatMap((repo, i) => (repo.ok && repo.value.workTree === bases[i] ? [repo.value] : []));
  }

  async #discover(path: string, label: string, guard?: PointerGuard): Promise<Result<RepoLocation>> {
    const found = await discoverRepository(path, this.ctx.files, guard);
    return found.ok ? found : err({ ...found.error, message: `${label}: ${found.error.message}` });
  }
}

type LinkedWorktree = { path: string; gitDir: string; commonDir: string };

const invalid = (message: string, hint: string) => fail("invalid_params", message, hint);
