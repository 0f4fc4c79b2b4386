import { realpathSync } from "node:fs";
import { readBounded } from "../fs/bounded-read.ts";
import { decodeUtf8 } from "../fs/cached-file.ts";
import { isInside } from "../fs/path-inside.ts";
import { isPlainObject } from "../twig/state.ts";
import type { ClientName } from "./args.ts";
import type { ExistingEntry } from "./config-entry-update.ts";
import { plainValue, readServerEntry } from "./config-merge.ts";
import { CLIENT_SPECS, configPath, type Locations } from "./config-paths.ts";

/** A client's entry for the server, as read (never written) from one of its files. */
export interface Registration {
  client: ClientName;
  /** Claude Code's `local` scope is its entry for this project inside ~/.claude.json. */
  scope: "user" | "project" | "local";
  path: string;
  entry: ExistingEntry;
}

/** Room for the project history Claude Code keeps in ~/.claude.json. */
const MAX_CLAUDE_JSON_BYTES = 32 * 1024 * 1024;
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The entries named `name` in each client's user and project files (those `config` writes), and Claude Code's local one. */
export function findRegistrations(at: Locations, name: string, clients: readonly ClientName[]): Registration[] {
  const found: Registration[] = [];
  for (const client of clients) {
    const spec = CLIENT_SPECS[client];
    for (const scope of ["user", "project"] as const) {
      if (scope === "project" && spec.projectFile === undefined) continue;
      const path = configPath(client, scope, at);
      if (!path.ok) continue;
      const claudeJson = client === "claude-code" && scope === "user";
      // A project file is the clone's: read only where its real path stays in the working tree, as `config --write`.
      if (scope === "project" && !staysIn(path.value, at.projectRoot ?? "")) continue;
      const read = readBounded(path.value, claudeJson ? MAX_CLAUDE_JSON_BYTES : MAX_CONFIG_BYTES);
      const text = read.kind === "found" ? decodeUtf8(read.bytes) : null;
      if (text === null) continue;
      const entry = readServerEntry(spec.format, text, spec.serversKey, name);
      if (entry !== null) found.push({ client, scope, path: path.value, entry });
      if (!claudeJson || at.projectRoot === null) continue;
      const doc = plainValue(text);
      const local = isPlainObject(doc) && isPlainObject(doc.projects) ? doc.projects[at.projectRoot] : undefined;
      const own = isPlainObject(local) ? readServerEntry("json", JSON.stringify(local), "mcpServers", name) : null;
      if (own !== null) found.push({ client, scope: "local", path: path.value, entry: own });
    }
  }
  return found;
}

/** Which scope Claude Code starts when a name is in several: local, then project, then user. */
export function claudeCodeChoice(scopes: readonly Registration["scope"][]): Registration["scope"] | undefined {
  return (["local", "project", "user"] as const).find((scope) => scopes.includes(scope));
}

/** Whether `path`, links followed, lies in `root`; one that does not resolve counts (reading it finds nothing). */
function staysIn(path: string, root: string): boolean {
  const real = (at: string) => {
    try {
      return realpathSync(at);
    } catch {
      return null;
    }
  };
  const target = real(path);
  return target === null || isInside(target, real(root) ?? root);
}
