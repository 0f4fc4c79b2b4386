import { join } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { unreadableHint } from "./hints.ts";
import type { RepoLocation } from "./location.ts";
import { type RefValue, readLooseRef } from "./loose-ref.ts";
import { readPackedRefs } from "./packed-refs.ts";
import { checkRefnameFormat } from "./refname.ts";

/** git's SYMREF_MAXDEPTH: how many symbolic hops it follows before calling the ref broken. */
const MAX_SYMREF_DEPTH = 5;

/**
 * Refs that each worktree keeps for itself, in its own git dir: HEAD and the other pseudorefs, and
 * the refs/worktree, refs/bisect and refs/rewritten namespaces. Everything else is shared.
 */
const SHARED_REF = /^refs\/(?!(?:worktree|bisect|rewritten)\/)/;

/** One ref as stored, without following it: the loose file wins over packed-refs. */
export async function readRef(
  repo: RepoLocation,
  refname: string,
  files: CachedFileReader,
): Promise<Result<RefValue | null>> {
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
  switch (loose.kind) {
    case "found":
      return ok(loose.value);
    case "malformed":
      return err(
        toolError(
          "internal",
          `${path} is not a valid git ref (a small regular file holding an object id or 'ref: <name>')`,
          "git reports such a ref as broken too: repair it with `git update-ref`, or delete the file.",
        ),
      );
    case "unreadable":
      return err(toolError("internal", `Cannot read ${path}: ${loose.cause}`, unreadableHint(path)));
    case "missing":
      break;
  }
  // Per-worktree refs are never written to the shared packed-refs file.
  if (perWorktree) return ok(null);
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  const entry = packed.value.get(refname);
  return ok(entry === undefined ? null : { kind: "oid", oid: entry.oid });
}

export interface ResolvedRef {
  /** The last ref in the symbolic chain: `refname` itself unless it was symbolic. */
  refname: string;
  /** Its object id, or `null` when that ref does not exist (an unborn branch). */
  oid: string | null;
}

/** Follows symbolic refs from `refname` to the ref that holds an object id (or does not exist). */
export async function resolveRefChain(
  repo: RepoLocation,
  refname: string,
  files: CachedFileReader,
): Promise<Result<ResolvedRef>> {
  let current = refname;
  for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
    const value = await readRef(repo, current, files);
    if (!value.ok) {
      if (current === refname) return value;
      return err(
        toolError(
          "internal",
          `Symbolic ref '${refname}' points to an invalid ref: ${value.error.message}`,
          `Point it at a branch: git symbolic-ref ${refname} refs/heads/<branch>`,
        ),
      );
    }
    if (value.value === null) return ok({ refname: current, oid: null });
    if (value.value.kind === "oid") return ok({ refname: current, oid: value.value.oid });
    current = value.value.target;
  }
  return err(
    toolError(
      "internal",
      `Symbolic ref '${refname}' is nested more than ${MAX_SYMREF_DEPTH} levels deep (a loop?)`,
      `Point it at a branch: git symbolic-ref ${refname} refs/heads/<branch>`,
    ),
  );
}
