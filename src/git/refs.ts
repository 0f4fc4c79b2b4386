import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { sortBytewise } from "./bytewise.ts";
import type { RepoLocation } from "./discover.ts";
import { listLooseBranches } from "./loose-branches.ts";
import { readPackedRefs } from "./packed-refs.ts";
import { resolveRefChain } from "./ref-store.ts";

const HEADS = "refs/heads/";

/** Short names of all local branches, loose and packed, sorted by UTF-8 bytes as git sorts them. */
export async function listLocalBranches(repo: RepoLocation, files: CachedFileReader): Promise<Result<string[]>> {
  const loose = await listLooseBranches(join(repo.commonDir, "refs", "heads"));
  if (!loose.ok) return loose;
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  const packedNames: string[] = [];
  for (const refname of packed.value.keys()) {
    if (refname.startsWith(HEADS)) packedNames.push(refname.slice(HEADS.length));
  }
  // A branch may be both loose and packed.
  return ok(sortBytewise([...new Set([...loose.value, ...packedNames])]));
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
