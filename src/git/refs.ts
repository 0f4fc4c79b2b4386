import { join } from "node:path";
import { ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { compareBytewise, sortBytewise } from "./bytewise.ts";
import type { RepoLocation } from "./discover.ts";
import { listLooseBranches } from "./loose-branches.ts";
import { type PackedRef, readPackedRefs } from "./packed-refs.ts";
import { resolveRefChain } from "./ref-store.ts";

const HEADS = "refs/heads/";

/**
 * Short names of all local branches, loose and packed, sorted by UTF-8 bytes as git sorts them.
 * While neither the loose names nor packed-refs changed, the very same array is returned, so
 * callers can tell "unchanged" by identity.
 */
export async function listLocalBranches(repo: RepoLocation, files: CachedFileReader): Promise<Result<string[]>> {
  const loose = await listLooseBranches(join(repo.commonDir, "refs", "heads"), files);
  if (!loose.ok) return loose;
  const packed = await readPackedRefs(repo.commonDir, files);
  if (!packed.ok) return packed;
  const packedNames = packedBranches(packed.value);
  const last = mergedLists.get(loose.value);
  if (last?.packed === packedNames) return ok(last.merged);
  const merged = mergeSorted(loose.value, packedNames);
  mergedLists.set(loose.value, { packed: packedNames, merged });
  return ok(merged);
}

/** The last merge of one loose listing, with the packed list it was merged with. */
const mergedLists = new WeakMap<readonly string[], { packed: readonly string[]; merged: string[] }>();

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
