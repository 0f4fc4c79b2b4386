import type { Dirent } from "node:fs";
import { join, sep } from "node:path";
import { toolError } from "../errors.ts";
import { type CachedFileReader, decodeUtf8, describeFsError } from "../fs/cached-file.ts";
import { readdir } from "../fs/local-fs.ts";
import { err, ok, type Result } from "../result.ts";
import { compareBytewise, sortBytewise } from "./bytewise.ts";
import type { RepoLocation } from "./discover.ts";
import { unreadableHint } from "./hints.ts";
import { type PackedRef, readPackedRefs } from "./packed-refs.ts";
import { resolveRefChain } from "./ref-store.ts";
import { checkRefnameFormat } from "./refname.ts";

const HEADS = "refs/heads/";

/**
 * Short names of all local branches, loose and packed, sorted by UTF-8 bytes as git sorts them.
 * Loose refs are listed by name only (one recursive directory read), never opened one by one, so
 * this stays fast with thousands of branches.
 */
export async function listLocalBranches(repo: RepoLocation, files: CachedFileReader): Promise<Result<string[]>> {
  const loose = await listLooseBranches(join(repo.commonDir, "refs", "heads"));
  if (!loose.ok) return loose;
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  return ok(mergeSorted(sortBytewise(loose.value), packedBranches(packed.value)));
}

/** The branches of one parsed packed-refs file, sorted; worked out once per file content. */
const packedBranchLists = new WeakMap<ReadonlyMap<string, PackedRef>, string[]>();

function packedBranches(packed: ReadonlyMap<string, PackedRef>): string[] {
  let names = packedBranchLists.get(packed);
  if (names === undefined) {
    names = [];
    for (const refname of packed.keys()) {
      if (refname.startsWith(HEADS)) names.push(refname.slice(HEADS.length));
    }
    sortBytewise(names);
    packedBranchLists.set(packed, names);
  }
  return names;
}

/** Two byte-wise sorted lists as one, each name once (a branch may be both loose and packed). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (compareBytewise(x, y) < 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as string);
  while (j < b.length) out.push(b[j++] as string);
  return out;
}

/** The object id `refname` (a full name such as `refs/heads/main`, or `HEAD`) resolves to; `null` when absent. */
export async function resolveRef(
  repo: RepoLocation,
  refname: string,
  files: CachedFileReader,
): Promise<Result<string | null>> {
  const resolved = await resolveRefChain(repo, refname, files);
  return resolved.ok ? ok(resolved.value.oid) : resolved;
}

async function listLooseBranches(headsDir: string): Promise<Result<string[]>> {
  let entries: Dirent[];
  try {
    entries = await readdir(headsDir, { recursive: true, withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return ok([]);
    return err(toolError("internal", `Cannot list ${headsDir}: ${describeFsError(error)}`, unreadableHint(headsDir)));
  }
  const names: string[] = [];
  let lossy = false;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const name = branchNameOf(headsDir, entry);
    // `<ref>.lock` files exist while git updates `<ref>`; invalid names (such as dotfiles left by
    // editors) are skipped by git's loose-ref iterator too.
    if (name === null || checkRefnameFormat(HEADS + name) !== null) continue;
    if (name.includes("\uFFFD")) lossy = true;
    names.push(name);
  }
  return ok(lossy ? await dropUndecodable(headsDir, names) : names);
}

function branchNameOf(headsDir: string, entry: Dirent): string | null {
  const parent = entry.parentPath;
  if (parent === headsDir) return entry.name;
  if (!parent.startsWith(headsDir + sep)) return null;
  const dir = parent.slice(headsDir.length + 1);
  return `${sep === "/" ? dir : dir.split(sep).join("/")}/${entry.name}`;
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
