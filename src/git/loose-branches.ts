import { join, sep } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { decodeUtf8 } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { readdir } from "../fs/local-fs.ts";
import { unreadableHint } from "./hints.ts";
import { checkRefnameFormat } from "./refname.ts";

const HEADS = "refs/heads/";

/**
 * Short names of the loose branches under `headsDir` (`<commonDir>/refs/heads`), unsorted. Refs
 * are listed by name only, never opened one by one, so this stays fast with thousands of branches.
 */
export async function listLooseBranches(headsDir: string): Promise<Result<string[]>> {
  const names: string[] = [];
  let lossy = false;
  const pending: { path: string; prefix: string }[] = [{ path: headsDir, prefix: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, prefix } = next;
    const read = await listDirectory(path);
    if (read.kind === "unreadable") {
      return err(toolError("internal", `Cannot list ${path}: ${read.cause}`, unreadableHint(path)));
    }
    // No refs/heads at all is no loose branch; a subdirectory gone since its parent was read holds none.
    if (read.kind === "missing") continue;
    for (const file of read.entries.files) {
      const name = prefix + file;
      // `<ref>.lock` files exist while git updates `<ref>`; invalid names (such as dotfiles left by
      // editors) are skipped by git's loose-ref iterator too.
      if (checkRefnameFormat(HEADS + name) !== null) continue;
      if (name.includes("\uFFFD")) lossy = true;
      names.push(name);
    }
    for (const dir of read.entries.dirs) pending.push({ path: join(path, dir), prefix: `${prefix}${dir}/` });
  }
  return ok(lossy ? await dropUndecodable(headsDir, names) : names);
}

/**
 * File names that are not UTF-8 come back from `readdir` with U+FFFD in place of the bad bytes,
 * naming a branch that does not exist. Such names are rare, so only then are the raw names read
 * to tell a real U+FFFD from a replaced byte.
 */
async function dropUndecodable(headsDir: string, names: string[]): Promise<string[]> {
  let raw: Buffer[];
  try {
    raw = await readdir(headsDir, { recursive: true, encoding: "buffer" });
  } catch {
    return names.filter((name) => !name.includes("\uFFFD"));
  }
  const decodable = new Set<string>();
  for (const path of raw) {
    const text = decodeUtf8(path);
    if (text !== null) decodable.add(sep === "/" ? text : text.split(sep).join("/"));
  }
  return names.filter((name) => !name.includes("\uFFFD") || decodable.has(name));
}
