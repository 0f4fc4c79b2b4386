import { join, sep } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { type CachedFileReader, decodeUtf8 } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { readdir } from "../fs/local-fs.ts";
import { sortBytewise } from "./bytewise.ts";
import type { RepoLocation } from "./discover.ts";
import { unreadable } from "./hints.ts";
import { type RefValue, readLooseRef } from "./loose-ref.ts";
import { readPackedRefs } from "./packed-refs.ts";
import { checkRefnameFormat } from "./refname.ts";

export const HEADS = "refs/heads/";

/** git's SYMREF_MAXDEPTH: how many symbolic hops it follows before calling the ref broken. */
const MAX_SYMREF_DEPTH = 5;

/**
 * Refs that each worktree keeps for itself, in its own git dir: HEAD and the other pseudorefs, and
 * the refs/worktree, refs/bisect and refs/rewritten namespaces. Everything else is shared.
 */
const SHARED_REF = /^refs\/(?!(?:worktree|bisect|rewritten)\/)/;

/** One ref as stored, without following it: the loose file wins over packed-refs. */
async function readRef(repo: RepoLocation, refname: string, files: CachedFileReader): Promise<Result<RefValue | null>> {
  // Beyond the format rules, git's `refname_is_safe`: a name outside `refs/` must be all capitals
  // and underscores (HEAD, ORIG_HEAD), so a name such as `config` or `index` is never read as a ref.
  let bad = checkRefnameFormat(refname);
  if (bad === null && !refname.startsWith("refs/") && !/^[A-Z_]+$/.test(refname)) {
    bad = "is neither under refs/ nor an all-caps name such as HEAD";
  }
  if (bad !== null) return err(toolError("invalid_params", `Ref name '${refname}' ${bad}`));
  const perWorktree = !SHARED_REF.test(refname);
  const path = join(perWorktree ? repo.gitDir : repo.commonDir, refname);
  const loose = await readLooseRef(path);
  if (loose.kind === "found") return ok(loose.value);
  if (loose.kind === "unreadable") return unreadable(path, loose.cause);
  if (loose.kind === "malformed") {
    return err(
      toolError(
        "internal",
        `${path} is not a valid git ref (a small regular file holding an object id or 'ref: <name>')`,
        "git reports such a ref as broken too: repair it with `git update-ref`, or delete the file.",
      ),
    );
  }
  // Per-worktree refs are never written to the shared packed-refs file.
  if (perWorktree) return ok(null);
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  const oid = packed.value.get(refname);
  return ok(oid === undefined ? null : { kind: "oid", oid });
}

/**
 * Follows symbolic refs from `refname` to the last ref of the chain (`refname` itself unless it is
 * symbolic) and its object id, `null` when that ref does not exist (an unborn branch).
 */
export async function resolveRefChain(
  repo: RepoLocation,
  refname: string,
  files: CachedFileReader,
): Promise<Result<{ refname: string; oid: string | null }>> {
  const hint = `Point it at a branch: git symbolic-ref ${refname} refs/heads/<branch>`;
  const broken = (problem: string) => err(toolError("internal", `Symbolic ref '${refname}' ${problem}`, hint));
  let current = refname;
  for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
    const value = await readRef(repo, current, files);
    if (!value.ok) return current === refname ? value : broken(`points to an invalid ref: ${value.error.message}`);
    if (value.value === null) return ok({ refname: current, oid: null });
    if (value.value.kind === "oid") return ok({ refname: current, oid: value.value.oid });
    current = value.value.target;
  }
  return broken(`is nested more than ${MAX_SYMREF_DEPTH} levels deep (a loop?)`);
}

/** Short names of all local branches, loose and packed, sorted by UTF-8 bytes as git sorts them. */
export async function listLocalBranches(repo: RepoLocation, files: CachedFileReader): Promise<Result<string[]>> {
  const loose = await listLooseBranches(join(repo.commonDir, "refs", "heads"));
  if (!loose.ok) return loose;
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  // A branch may be both loose and packed.
  const names = new Set(loose.value);
  for (const refname of packed.value.keys()) if (refname.startsWith(HEADS)) names.add(refname.slice(HEADS.length));
  return ok(sortBytewise([...names]));
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

/**
 * Short names of the loose branches under `headsDir` (`<commonDir>/refs/heads`), unsorted. Refs
 * are listed by name only, never opened one by one, so this stays fast with thousands of branches.
 */
async function listLooseBranches(headsDir: string): Promise<Result<string[]>> {
  const names: string[] = [];
  let lossy = false;
  const pending: { path: string; prefix: string }[] = [{ path: headsDir, prefix: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, prefix } = next;
    const read = await listDirectory(path);
    if (read.kind === "unreadable") return unreadable(path, read.cause, "list");
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
