import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { trimChars } from "../core/plain-text.ts";
import { ok, type Result } from "../core/result.ts";
import { readBounded } from "../fs/bounded-read.ts";
import { decodeUtf8, describeFsError, type FileRead } from "../fs/cached-file.ts";
import { listDirectory } from "../fs/dir-listing.ts";
import { lstatIfExists, readlink } from "../fs/local-fs.ts";
import { sortBytewise } from "./bytewise.ts";
import { fail, unreadable, unsupported } from "./hints.ts";
import { findPackedRef, GIT_SPACE, leadingOid, listPackedRefs } from "./packed-refs.ts";
import { checkRefnameFormat } from "./refname.ts";

/** Where a repository's files are; all paths absolute and canonical. */
export interface RepoLocation {
  /** The per-worktree git dir (HEAD lives here). */
  gitDir: string;
  /** The shared dir (refs/, packed-refs, config, worktrees/); `gitDir` unless a linked worktree. */
  commonDir: string;
  workTree: string;
  isLinkedWorktree: boolean;
}

export const HEADS = "refs/heads/";

/** What one ref holds: an object name, or (for HEAD and the like) the name of another ref. */
export type RefValue = { kind: "oid"; oid: string } | { kind: "symbolic"; target: string };

type LooseRead = FileRead<RefValue> | { kind: "malformed" };

/** git's `parse_loose_ref_contents`: `ref: <name>`, or an object name (trailing data allowed); else `null`. */
export function parseLooseRef(bytes: Uint8Array): RefValue | null {
  const text = decodeUtf8(bytes);
  if (text === null) return null;
  // `strbuf_rtrim`, then (after `ref:`) the spaces before the target.
  const trimmed = trimChars(text, GIT_SPACE);
  if (trimmed.startsWith("ref:")) return { kind: "symbolic", target: trimChars(trimmed.slice(4), GIT_SPACE, true) };
  const oid = leadingOid(trimmed);
  return oid === null ? null : { kind: "oid", oid };
}

/** Anything much larger than an object id or `ref: <name>` is not a ref, and is not read to find out. */
const MAX_LOOSE_REF_BYTES = 64 * 1024;

export async function readLooseRef(path: string): Promise<LooseRead> {
  try {
    const info = await lstatIfExists(path);
    // A directory where the ref would be means "no loose ref"; packed-refs is still consulted.
    if (info === undefined || info.isDirectory()) return { kind: "missing" };
    // Old git (core.preferSymlinkRefs) wrote symbolic refs as symlinks such as HEAD -> refs/heads/main.
    if (info.isSymbolicLink()) {
      const target = await readlink(path);
      if (target.startsWith("refs/")) return { kind: "found", value: { kind: "symbolic", target } };
      // git writes no other link; read through, it could be any file (another repository's branch).
      return { kind: "malformed" };
    }
  } catch (error) {
    return absentOrUnreadable(error);
  }
  // One `fstat`ed descriptor: a FIFO or device (HEAD -> /dev/zero) swapped in is refused unread.
  const read = readBounded(path, MAX_LOOSE_REF_BYTES);
  if (read.kind === "missing" || read.kind === "directory") return { kind: "missing" };
  if (read.kind === "unreadable") return absentOrUnreadable(read.error);
  const parsed = read.kind === "found" ? parseLooseRef(read.bytes) : null; // special or too large: not a ref
  return parsed === null ? { kind: "malformed" } : { kind: "found", value: parsed };
}

function absentOrUnreadable(error: unknown): LooseRead {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return { kind: "missing" };
  return { kind: "unreadable", cause: describeFsError(error) };
}

/** git's SYMREF_MAXDEPTH: how many symbolic hops it follows before calling the ref broken. */
const MAX_SYMREF_DEPTH = 5;

/** Refs each worktree keeps in its own git dir: pseudorefs, refs/worktree, refs/bisect, refs/rewritten. */
const SHARED_REF = /^refs\/(?!(?:worktree|bisect|rewritten)\/)/;

/** One ref as stored, without following it: the loose file wins over packed-refs. */
async function readRef(repo: RepoLocation, refname: string): Promise<Result<RefValue | null>> {
  // git's `refname_is_safe`: outside `refs/` only all-caps names, so `config` is never read as a ref.
  const safe = refname.startsWith("refs/") || /^[A-Z_]+$/.test(refname);
  const bad = checkRefnameFormat(refname) ?? (safe ? null : "is neither under refs/ nor an all-caps name such as HEAD");
  if (bad !== null) return fail("invalid_params", `Ref name '${refname}' ${bad}`);
  const perWorktree = !SHARED_REF.test(refname);
  const path = join(perWorktree ? repo.gitDir : repo.commonDir, refname);
  const loose = await readLooseRef(path);
  if (loose.kind === "found") return ok(loose.value);
  if (loose.kind === "unreadable") return unreadable(path, loose.cause);
  if (loose.kind === "malformed") {
    return fail(
      "internal",
      `${path} is not a valid git ref (a small regular file holding an object id or 'ref: <name>')`,
      "git reports such a ref as broken too: repair it with `git update-ref`, or delete the file.",
    );
  }
  // Per-worktree refs are never written to the shared packed-refs file.
  if (perWorktree) return ok(null);
  const packed = findPackedRef(repo.commonDir, refname);
  if (!packed.ok) return packed;
  return ok(packed.value === null ? null : { kind: "oid", oid: packed.value });
}

/** The last ref of `refname`'s symbolic chain and its object id (`null`: unborn); `stored`: if just read. */
async function resolveRefChain(
  repo: RepoLocation,
  refname: string,
  stored?: RefValue,
): Promise<Result<{ refname: string; oid: string | null }>> {
  const hint = `Point it at a branch: git symbolic-ref ${refname} refs/heads/<branch>`;
  const broken = (problem: string) => fail("internal", `Symbolic ref '${refname}' ${problem}`, hint);
  let current = refname;
  for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
    const value = depth === 0 && stored !== undefined ? ok(stored) : await readRef(repo, current);
    if (!value.ok) return current === refname ? value : broken(`points to an invalid ref: ${value.error.message}`);
    if (value.value === null) return ok({ refname: current, oid: null });
    if (value.value.kind === "oid") return ok({ refname: current, oid: value.value.oid });
    current = value.value.target;
  }
  return broken(`is nested more than ${MAX_SYMREF_DEPTH} levels deep (a loop?)`);
}

/** The object id `refname` (a full name such as `refs/heads/main`, or `HEAD`) resolves to; `null` when absent. */
export async function resolveRef(repo: RepoLocation, refname: string): Promise<Result<string | null>> {
  const resolved = await resolveRefChain(repo, refname);
  return resolved.ok ? ok(resolved.value.oid) : resolved;
}

/** Entries a loose-branch walk visits before it gives up: a hostile repository could hold millions. */
const MAX_LOOSE_REF_ENTRIES = 100_000;

/**
 * Short names of all local branches, loose (listed, never opened) and packed, in git's byte order. Links are
 * not followed: `refs/heads -> /` would walk the disk (refused), `a -> .` inside it loops (skipped).
 */
export async function listLocalBranches(repo: RepoLocation): Promise<Result<string[]>> {
  const headsDir = join(repo.commonDir, "refs", "heads");
  for (const dir of [dirname(headsDir), headsDir]) {
    if ((await lstatIfExists(dir).catch(() => undefined))?.isSymbolicLink()) {
      return unsupported(
        `${dir} is a symbolic link; twig-mcp does not list branches through it`,
        "git writes refs/heads as a plain directory: replace the link with the directory it points to.",
      );
    }
  }
  // A branch may be both loose and packed.
  const names = new Set<string>();
  let visited = 0;
  const pending = [{ path: headsDir, prefix: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, prefix } = next;
    const read = await listDirectory(path);
    if (read.kind === "unreadable") return unreadable(path, read.cause, "list");
    // No refs/heads at all is no loose branch; a subdirectory gone since its parent was read holds none.
    if (read.kind === "missing") continue;
    const { files: entries, dirs } = read.entries;
    visited += entries.length + dirs.length;
    if (visited > MAX_LOOSE_REF_ENTRIES) {
      return unsupported(
        `${headsDir} holds more than ${MAX_LOOSE_REF_ENTRIES} files and directories; twig-mcp stops listing there`,
        "`git pack-refs --all` moves branches into packed-refs, where they are read as one sorted range; prune branches you no longer need.",
      );
    }
    // A name that is not UTF-8 comes back with U+FFFD: only then are raw names read to tell them apart.
    const decodable = entries.some((file) => file.includes("\uFFFD")) ? decodableNames(path) : null;
    for (const file of entries) {
      // git's loose-ref iterator skips invalid names (`<ref>.lock`, editors' dotfiles) too.
      if (checkRefnameFormat(HEADS + prefix + file) !== null) continue;
      if (decodable === null || !file.includes("\uFFFD") || decodable.has(file)) names.add(prefix + file);
    }
    for (const dir of dirs) pending.push({ path: join(path, dir), prefix: `${prefix}${dir}/` });
  }
  const packed = listPackedRefs(repo.commonDir, HEADS);
  if (!packed.ok) return packed;
  for (const { refname } of packed.value) names.add(refname.slice(HEADS.length));
  return ok(sortBytewise([...names]));
}

/** The names in one directory that are valid UTF-8 (read as bytes, not following anything). */
function decodableNames(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir, { encoding: "buffer" }).flatMap((raw) => decodeUtf8(raw) ?? []));
  } catch {
    return new Set(); // Unreadable now: every replaced name is dropped.
  }
}

export type Head =
  /** `unborn`: the branch has no commit yet (a new repository, or after `git checkout --orphan`). */
  { kind: "branch"; branch: string; unborn: boolean; oid: string | null } | { kind: "detached"; oid: string };

/** What the worktree at `repo.gitDir` has checked out; `stored`: HEAD as discovery just read it. */
export async function readHead(repo: RepoLocation, stored?: RefValue): Promise<Result<Head>> {
  // A chain that stops at HEAD itself means HEAD holds an object id (detached) or is missing.
  const resolved = await resolveRefChain(repo, "HEAD", stored);
  if (!resolved.ok) return resolved;
  const { refname, oid } = resolved.value;
  if (refname.startsWith(HEADS)) {
    return ok({ kind: "branch", branch: refname.slice(HEADS.length), unborn: oid === null, oid });
  }
  // HEAD naming another ref under refs/ is detached at that ref's commit, as in git.
  if (oid !== null) return ok({ kind: "detached", oid });
  if (refname === "HEAD")
    return fail("no_repo", `${join(repo.gitDir, "HEAD")} is missing`, "Is the repository damaged?");
  return fail(
    "not_found",
    `HEAD points to '${refname}', which is not a branch and does not exist`,
    "Check out a branch.",
  );
}
