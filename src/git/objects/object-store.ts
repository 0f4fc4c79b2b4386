/**
 * Hand-written: isomorphic-git reads a whole pack into memory to take one object from it; this
 * reader must stay bounded on any pack, so it reads the index and each object by offset.
 */
import { readdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import { isInside } from "../../fs/path-inside.ts";
import {
  applyDelta,
  inflateCapped,
  maxDeflatedBytes,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  Pack,
  type PackEntry,
} from "./pack.ts";
import { corrupt, isLink, ObjectReadError, PositionalFile, readStart } from "./positional-file.ts";

const OBJECT_TYPES = ["", "commit", "tree", "blob", "tag"] as const;
export type ObjectType = "commit" | "tree" | "blob" | "tag";

export type GitObject = { type: ObjectType; data: Uint8Array };

/** Commits are small; a larger object is refused before it is read (a message of megabytes is an attack). */
const MAX_OBJECT_BYTES = 4 * 1024 * 1024;
/** git's own ceiling for `--depth` (pack-objects clamps to 4095); anything longer is a loop or an attack. */
const MAX_DELTA_DEPTH = 4095;
/** All deltas of one chain, and apart all the objects they build: either could otherwise take minutes. */
const MAX_CHAIN_BYTES = 64 * 1024 * 1024;
/** git reads alternates five levels deep. */
const MAX_ALTERNATE_DEPTH = 5;

/** A repository's packs and loose objects, and its alternates' inside `places`; files open on first use. */
export class ObjectStore {
  #packs: Pack[] | null = null;
  readonly notes: string[] = [];

  private constructor(readonly dirs: string[]) {}

  /** An alternate is followed only when its canonical path is inside `places`: it could name any directory. */
  static open(objectsDir: string, places: readonly string[]): ObjectStore {
    const dirs: string[] = [];
    const store = new ObjectStore(dirs);
    const visit = (dir: string, depth: number) => {
      let canonical: string;
      try {
        canonical = realpathSync(dir);
      } catch {
        return;
      }
      if (dirs.includes(canonical)) return;
      if (!places.some((place) => isInside(canonical, place))) {
        store.notes.push(`object directory ${dir} is outside the repository, not read`);
        return;
      }
      dirs.push(canonical);
      if (depth >= MAX_ALTERNATE_DEPTH) return;
      for (const line of readAlternates(join(canonical, "info", "alternates"))) {
        visit(resolve(canonical, line), depth + 1);
      }
    };
    visit(objectsDir, 0);
    return store;
  }

  /** The object named `oid` (40 hex digits); throws `ObjectReadError` when it is missing or broken. */
  read(oid: string): GitObject {
    const packed = this.#findPacked(Buffer.from(oid, "hex"));
    if (packed !== null) return this.#fromPack(packed);
    for (const dir of this.dirs) {
      const fanout = join(dir, oid.slice(0, 2));
      if (isLink(fanout)) corrupt(`${fanout} is a link, not read`);
      const found = readLoose(join(fanout, oid.slice(2)));
      if (found !== null) return found;
    }
    return corrupt(`object ${oid} is missing`);
  }

  close(): void {
    for (const pack of this.#packs ?? []) pack.close();
    this.#packs = [];
  }

  #openPacks(): Pack[] {
    if (this.#packs !== null) return this.#packs;
    const packs: Pack[] = [];
    this.#packs = packs;
    for (const dir of this.dirs) {
      const packDir = join(dir, "pack");
      if (isLink(packDir)) {
        this.notes.push(`${packDir} is a link, not read`);
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(packDir);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (!name.startsWith("pack-") || !name.endsWith(".idx")) continue;
        try {
          const pack = Pack.open(join(packDir, name.slice(0, -".idx".length)));
          if (pack !== null) packs.push(pack);
        } catch (error) {
          // One broken pack must not hide the objects of the others; an object only it holds is reported missing.
          if (!(error instanceof ObjectReadError)) throw error;
          this.notes.push(error.message);
        }
      }
    }
    return packs;
  }

  /** Resolves a delta chain without recursion: headers collected down to the base, then applied up. */
  #fromPack(start: { pack: Pack; offset: number }): GitObject {
    const chain: { pack: Pack; entry: PackEntry }[] = [];
    const seen = new Set<string>();
    let chainBytes = 0;
    let at = start;
    for (;;) {
      const key = `${at.pack.path}:${at.offset}`;
      if (seen.has(key)) corrupt(`${at.pack.path} has a delta loop at offset ${at.offset}`);
      seen.add(key);
      const entry = at.pack.entry(at.offset);
      if (entry.type !== OBJ_OFS_DELTA && entry.type !== OBJ_REF_DELTA) {
        let data = at.pack.inflate(entry, MAX_OBJECT_BYTES);
        let built = 0;
        for (let i = chain.length - 1; i >= 0; i--) {
          const step = chain[i] as (typeof chain)[number];
          data = applyDelta(data, step.pack.inflate(step.entry, MAX_OBJECT_BYTES), MAX_OBJECT_BYTES);
          built += data.length;
          if (built > MAX_CHAIN_BYTES)
            corrupt(`${start.pack.path} has a delta chain building over ${MAX_CHAIN_BYTES} bytes`);
        }
        return { type: OBJECT_TYPES[entry.type] as ObjectType, data };
      }
      chain.push({ pack: at.pack, entry });
      chainBytes += entry.size;
      if (chain.length > MAX_DELTA_DEPTH)
        corrupt(`${start.pack.path} has a delta chain deeper than ${MAX_DELTA_DEPTH}`);
      if (chainBytes > MAX_CHAIN_BYTES)
        corrupt(`${start.pack.path} has a delta chain of over ${MAX_CHAIN_BYTES} bytes`);
      if (entry.baseOffset !== undefined) at = { pack: at.pack, offset: entry.baseOffset };
      else {
        // A REF_DELTA entry always names its base.
        const base = entry.baseOid as Uint8Array;
        at =
          this.#findPacked(base) ??
          corrupt(`delta base ${Buffer.from(base).toString("hex")} is missing from every pack`);
      }
    }
  }

  /** Where an object is packed; a REF_DELTA's base may be in any pack (git completes thin packs). */
  #findPacked(oid: Uint8Array): { pack: Pack; offset: number } | null {
    for (const pack of this.#openPacks()) {
      const offset = pack.find(oid);
      if (offset !== null) return { pack, offset };
    }
    return null;
  }
}

/** A loose object (`objects/xx/yyyy…`): a zlib stream of `<type> <size>\0<data>`; `null` when absent. */
function readLoose(path: string): GitObject | null {
  const file = PositionalFile.open(path);
  if (file === null) return null;
  try {
    const limit = MAX_OBJECT_BYTES + 32;
    if (file.size > maxDeflatedBytes(limit)) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
    const raw = inflateCapped(file.read(0, file.size), limit, path);
    if (raw.length > limit) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
    const nul = raw.indexOf(0);
    const header = nul > 0 && nul <= 32 ? decodeUtf8(raw.subarray(0, nul)) : null;
    const match = header === null ? null : /^(commit|tree|blob|tag) (0|[1-9][0-9]{0,15})$/.exec(header);
    if (match === null) return corrupt(`${path} has no valid object header`);
    const data = raw.subarray(nul + 1);
    if (data.length !== Number(match[2]))
      corrupt(`${path} holds ${data.length} bytes, not the ${match[2]} it declares`);
    return { type: match[1] as ObjectType, data };
  } finally {
    file.close();
  }
}

/** The alternates file's directories: one per line, `#` comments and blank lines skipped, quoted paths refused. */
function readAlternates(path: string): string[] {
  try {
    const bytes = readStart(path, 64 * 1024);
    return ((bytes === null ? null : decodeUtf8(bytes)) ?? "")
      .split("\n")
      .map((line) => line.replace(/\r$/, ""))
      .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith('"'));
  } catch {
    return [];
  }
}
