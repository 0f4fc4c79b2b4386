import type { Context } from "../core/context.ts";
import type { ToolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readEffectiveConfig } from "../git/config-levels.ts";
import { discoverRepository } from "../git/discover.ts";
import type { Head } from "../git/head.ts";
import { readHead } from "../git/head.ts";
import { remoteUrls } from "../git/remotes.ts";
import { openWorkspace } from "../repo/workspace.ts";

/** A configured remote: its name and URL (`url.<base>.insteadOf` applied). */
export interface RemoteUrl {
  name: string;
  url: string;
}

/**
 * Remotes of the repository at `path` in config order, read fresh (a bare repository works too),
 * with the `insteadOf` rules of the system, the user and the repository applied.
 */
export async function readRemotes(
  ctx: Pick<Context, "files" | "env" | "home" | "platform">,
  path: string,
): Promise<Result<RemoteUrl[]>> {
  const repo = await discoverRepository(path, ctx.files);
  if (!repo.ok) return repo;
  const config = await readEffectiveConfig(repo.value, ctx);
  if (!config.ok) return config;
  return ok(remoteUrls(config.value));
}

/** What the default repository has checked out, and the working tree whose twig state applies. */
export async function readCurrentHead(
  ctx: Pick<Context, "repo" | "files">,
): Promise<Result<{ head: Head; workTree: string }, { stage: "open" | "head"; error: ToolError }>> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return err({ stage: "open", error: workspace.error });
  const head = await readHead(workspace.value.repo, ctx.files);
  if (!head.ok) return err({ stage: "head", error: head.error });
  return ok({ head: head.value, workTree: workspace.value.workTree });
}
