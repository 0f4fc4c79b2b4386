import { type Dirent, readdirSync } from "node:fs";
import { describeFsError } from "./cached-file.ts";

type DirEntries = Record<"files" | "dirs" | "links", string[]>;
type DirRead = { kind: "found"; entries: DirEntries } | { kind: "missing" } | { kind: "unreadable"; cause: string };

/** The entries of a directory under `.git` (`refs/heads/…`, `worktrees/`); `missing` when it is absent or not a directory. */
export async function listDirectory(path: string): Promise<DirRead> {
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "unreadable", cause: describeFsError(error) };
  }
  const listed: DirEntries = { files: [], dirs: [], links: [] };
  for (const entry of entries) {
    if (entry.isFile()) listed.files.push(entry.name);
    else if (entry.isDirectory()) listed.dirs.push(entry.name);
    else if (entry.isSymbolicLink()) listed.links.push(entry.name);
  }
  return { kind: "found", entries: listed };
}
