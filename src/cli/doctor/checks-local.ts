import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Context } from "../../core/context.ts";
import { ok, type Result } from "../../core/result.ts";
import { discoverRepository } from "../../git/discover.ts";
import { readHead } from "../../git/refs.ts";
import { registryPath } from "../../twig/dirs.ts";
import { loadRegistry } from "../../twig/registry.ts";
import { loadState, stateFileFor } from "../../twig/state.ts";
import { type Check, checker } from "./report.ts";

/** Which repository the server would serve, and what it has checked out; `repo` becomes `ctx.repo`. */
export async function checkRepository(
  ctx: Pick<Context, "files" | "cwd">,
  repoArg: string | null,
): Promise<{ check: Check; repo: Result<string> }> {
  const start = repoArg === null ? ctx.cwd : resolve(ctx.cwd, repoArg);
  const found = await discoverRepository(start, ctx.files);
  const result = checker("repository", "repository");
  if (!found.ok) {
    const check =
      repoArg !== null
        ? result("fail", found.error.message, "Pass --repo a directory inside a git checkout.")
        : result(
            "warn",
            `${start} is not inside a git repository`,
            "Started here, the server answers no_repo unless the client names a project (roots) or a request names a registered repository; add --repo PATH to the client's configuration.",
          );
    return { check, repo: found };
  }
  const workTree = found.value.workTree;
  const head = await readHead(found.value, ctx.files);
  let where: string;
  if (!head.ok) where = head.error.message;
  else if (head.value.kind === "detached") where = `detached HEAD at ${head.value.oid.slice(0, 12)}`;
  else where = `on ${head.value.branch}${head.value.unborn ? " (no commits yet)" : ""}`;
  const linked = found.value.isLinkedWorktree ? ", a linked worktree" : "";
  return { check: result("ok", `${workTree} (${where}${linked})`), repo: ok(workTree) };
}

/** twig's per-repository state file: absent is normal, unparseable breaks every stack tool. */
export async function checkState(ctx: Pick<Context, "files" | "repo">): Promise<Check> {
  const { repo } = ctx;
  const result = checker("state", "twig state");
  if (!repo.ok) return result("info", "no repository, so no state file to read");
  const path = await stateFileFor(ctx, repo.value);
  if (!existsSync(path)) {
    return result(
      "info",
      `${path} does not exist yet`,
      "twig creates it when it first records a branch here; until then the tools see no twig metadata.",
    );
  }
  const state = await loadState(ctx, repo.value);
  if (!state.ok) return result("fail", state.error.message, state.error.hint);
  const branches = state.value.branches.size;
  const roots = state.value.roots.length;
  const counts = `${path}: ${plural(branches, "branch", "branches")}, ${plural(roots, "root", "roots")}`;
  // Records twig would not have written: tools show them as the file has them, prompts do not.
  const { invalidNames, invalidJiraKeys } = state.value;
  if (invalidNames.size > 0 || invalidJiraKeys.size > 0) {
    const problems = [
      plural(invalidNames.size, "name git would refuse", "names git would refuse"),
      plural(invalidJiraKeys.size, "jira_issue that is not a key", "jira_issue values that are not keys"),
    ].filter((part) => !part.startsWith("0 "));
    return result(
      "warn",
      `${counts}; ${problems.join(", ")}`,
      "Prompts leave such records out or quote them. If you did not write them, the file came with the repository: check who committed it.",
    );
  }
  return result("ok", counts);
}

/** twig's global registry of repositories (`list_repositories`, the `repo` argument). */
export async function checkRegistry(ctx: Pick<Context, "files" | "dirs" | "platform" | "repo">): Promise<Check> {
  const { repo } = ctx;
  const result = checker("registry", "twig registry");
  const path = registryPath(ctx.dirs, ctx.platform);
  if (!existsSync(path)) {
    return result(
      "info",
      `${path} does not exist`,
      "Register repositories with `twig git add <path>` to let clients name them in requests.",
    );
  }
  const entries = await loadRegistry(ctx);
  if (!entries.ok) return result("fail", entries.error.message, entries.error.hint);
  const registered = repo.ok && entries.value.some((entry) => resolve(entry.path) === repo.value);
  const note = repo.ok ? (registered ? "; this repository is one of them" : "; this repository is not registered") : "";
  return result("ok", `${path}: ${plural(entries.value.length, "repository", "repositories")}${note}`);
}

/** Where twig keeps its files on this platform, so a user can tell the server looks where twig writes. */
export function checkDirectories(ctx: Pick<Context, "dirs">): Check {
  const { configDir, dataDir } = ctx.dirs;
  const describe = (dir: string) => `${dir}${existsSync(dir) ? "" : " (missing)"}`;
  const detail =
    configDir === dataDir ? describe(configDir) : `config ${describe(configDir)}, data ${describe(dataDir)}`;
  const result = checker("dirs", "twig directories");
  if (existsSync(dataDir)) return result("ok", detail);
  return result("info", detail, "Normal before twig's first run; XDG_CONFIG_HOME / XDG_DATA_HOME move them on Linux.");
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
