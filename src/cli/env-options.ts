import { err, ok, type Result } from "../core/result.ts";
import { type CommonOptions, DISABLE_GROUPS, type DisableGroup, type UsageError } from "./args.ts";

/**
 * `--repo` and `--disable` as environment variables, for hosts that configure a server that way
 * (src/packaging/mcpb.ts). A flag wins. Empty, or a host's unfilled `${user_config.…}`, is unset.
 */
const REPO_VARIABLE = "TWIG_MCP_REPO";
const DISABLE_VARIABLE = "TWIG_MCP_DISABLE";

export function withEnvironment<T extends CommonOptions>(
  options: T,
  env: Readonly<Record<string, string | undefined>>,
): Result<T, UsageError> {
  const repo = setting(env[REPO_VARIABLE]);
  const disable = setting(env[DISABLE_VARIABLE]);
  const disabled = new Set(options.disabled);
  if (disable !== null && options.disabled.size === 0) {
    for (const word of disable.split(/[\s,]+/)) {
      if (word === "") continue;
      if (!(DISABLE_GROUPS as readonly string[]).includes(word)) {
        return err({
          message: `${DISABLE_VARIABLE} takes a comma-separated list of ${DISABLE_GROUPS.join(", ")}, got '${clip(word)}'`,
        });
      }
      disabled.add(word as DisableGroup);
    }
  }
  return ok({ ...options, repo: options.repo ?? repo, disabled });
}

function setting(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? "";
  if (trimmed === "" || /^\$\{[^}]*\}$/.test(trimmed)) return null;
  return trimmed;
}

/** The value is echoed on stderr: printable ASCII only, and not much of it. */
function clip(word: string): string {
  const printable = word.replace(/[^\x20-\x7e]/g, "?");
  return printable.length > 40 ? `${printable.slice(0, 40)}…` : printable;
}
