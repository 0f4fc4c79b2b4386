import { dirname } from "node:path";
import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { resolvesInside } from "../fs/path-inside.ts";
import { registryPath } from "./dirs.ts";
import { describeIssueIn, parseJsonFile } from "./json-errors.ts";
import { type RegistryEntry, RegistryFileSchema } from "./schemas.ts";

/** No registry file: one shared list, so answers drawn from it can be kept like any other's. */
const NO_REPOSITORIES: RegistryEntry[] = [];

/** twig's global repository registry (§1.2): a missing file is an empty list. */
export async function loadRegistry(
  ctx: Pick<Context, "files" | "dirs" | "platform">,
): Promise<Result<RegistryEntry[]>> {
  const path = registryPath(ctx.dirs, ctx.platform);
  const fail = (verb: string, why: string, hint: string) =>
    err(
      toolError("invalid_registry", `Failed to load registry: Failed to ${verb} registry file ${path} (${why})`, hint),
    );
  // twig writes a plain file; a link out of its directory would read another file as the registry.
  if (!(await resolvesInside(path, dirname(path)))) {
    return fail(
      "read",
      "a symbolic link to a file outside its directory",
      `twig writes ${path} as a plain file: replace the link with a copy, or remove it.`,
    );
  }
  const read = await ctx.files.read(path, "twig-registry", parseRegistryBytes);
  if (read.kind === "missing") return ok(NO_REPOSITORIES);
  if (read.kind === "unreadable")
    return fail(
      "read",
      read.cause,
      `Check that ${path} is a readable file; it is twig's list of repositories, not this repository's state.`,
    );
  if (!read.value.ok)
    return fail(
      "parse",
      read.value.error,
      `Fix the JSON in ${path} (a list of {"name","path"} objects), or move it aside and re-register repositories with \`twig git add <path>\`. Tools without \`repo\` still read the current repository.`,
    );
  return ok(read.value.value);
}

export function parseRegistryBytes(bytes: Uint8Array): Result<RegistryEntry[], string> {
  const json = parseJsonFile(bytes);
  if (!json.ok) return json;
  const parsed = v.safeParse(RegistryFileSchema, json.value.value);
  return parsed.success ? ok(parsed.output) : err(describeIssueIn(json.value.text, parsed.issues));
}
