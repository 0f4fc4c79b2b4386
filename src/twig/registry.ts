import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { err, ok, type Result } from "../core/result.ts";
import { registryPath } from "./dirs.ts";
import { describeIssueIn, loadTwigFile, parseJsonFile } from "./json-errors.ts";

/** `registry.json`: unknown fields ignored. */
const RegistryFileSchema = v.array(
  v.object({ path: v.string(), name: v.string(), last_fetch: v.nullish(v.string(), null) }),
);
type RegistryEntry = v.InferOutput<typeof RegistryFileSchema>[number];

/** No registry file: one shared list, so answers drawn from it can be kept like any other's. */
const NO_REPOSITORIES: RegistryEntry[] = [];

/** twig's global repository registry: a missing file is an empty list. */
export async function loadRegistry(
  ctx: Pick<Context, "files" | "dirs" | "platform">,
): Promise<Result<RegistryEntry[]>> {
  const path = registryPath(ctx.dirs, ctx.platform);
  const read = await loadTwigFile(ctx.files, "registry", path, parseRegistryBytes, {
    unreadable: `Check that ${path} is a readable file; it is twig's list of repositories, not this repository's state.`,
    invalid: `Fix the JSON in ${path} (a list of {"name","path"} objects), or move it aside and re-register repositories with \`twig git add <path>\`. Tools without \`repo\` still read the current repository.`,
  });
  return read ?? ok(NO_REPOSITORIES);
}

export function parseRegistryBytes(bytes: Uint8Array): Result<RegistryEntry[], string> {
  const json = parseJsonFile(bytes);
  if (!json.ok) return json;
  const parsed = v.safeParse(RegistryFileSchema, json.value.value);
  return parsed.success ? ok(parsed.output) : err(describeIssueIn(json.value.text, parsed.issues));
}
