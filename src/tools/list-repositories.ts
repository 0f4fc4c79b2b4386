import * as v from "valibot";
import { ok } from "../core/result.ts";
import { statIfExists } from "../fs/local-fs.ts";
import { loadRegistry } from "../twig/registry.ts";
import { defineTool } from "./shared/define.ts";
import { count, cutFields } from "./shared/paging.ts";
import { NoParamsSchema } from "./shared/params.ts";

export const listRepositoriesTool = defineTool({
  name: "list_repositories",
  title: "Registered repositories",
  description:
    "List all twig-registered repositories (no other clones): name, path, whether it exists, and the default one (pass a name as `repo` to read another).",
  group: "local",
  input: NoParamsSchema,
  output: v.object({
    repositories: v.array(
      v.object({ name: v.string(), path: v.string(), exists: v.boolean(), is_default: v.optional(v.literal(true)) }),
    ),
    default_repository: v.nullable(v.string()),
    ...cutFields(["repositories"]),
  }),
  async handler(_args, ctx) {
    const registry = await loadRegistry(ctx);
    if (!registry.ok) return registry;
    const fallback = ctx.repos ? await ctx.repos.select(undefined) : ctx.repo;
    const current = fallback.ok ? fallback.value : null;
    const currentId = current === null ? null : await directoryId(current);
    const repositories = await Promise.all(
      registry.value.map(async ({ name, path }) => {
        const id = await directoryId(path);
        const isDefault = id !== null && id === currentId;
        return { name, path, exists: id !== null, ...(isDefault ? { is_default: true as const } : {}) };
      }),
    );
    return ok({ repositories, default_repository: current });
  },
  seldomCut: true,
  cut: {
    list: "repositories",
    rest: (_answer, _kept, left) => ({ hint: `${count(left)} more repositories left out to fit the reply budget.` }),
  },
});

/** The directory `path` reaches (through symlinks) as device:inode, one `stat`; `null` when absent. */
async function directoryId(path: string): Promise<string | null> {
  const info = await statIfExists(path).catch(() => undefined);
  return info === undefined ? null : `${info.dev}:${info.ino}`;
}
