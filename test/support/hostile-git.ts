/**
 * Hand-written git object files for hostile-repository tests: packs with their version-2 index,
 * delta entries, commit objects and commit-graph files, byte for byte as git lays them out, so a
 * test can build what `git` itself would never write (or would take minutes to).
 *
 *   writePack(objectsDir, [{ oid, bytes }])   pack-…bad.pack and .idx holding those raw entries
 *   entryHeader(type, size)                  a pack entry's type-and-size varint
 *   ofsDistance(n)                           an OFS_DELTA's base distance, in git's encoding
 *   delta(baseSize, ops)                     a delta: sizes, then copy/insert instructions
 *   commitText({ parents, message, … })      a commit object's body
 *   writeLoose(objectsDir, type, body)       a loose object; returns its name
 *   writeCommitGraph(objectsDir, commits, edges)  a single-file commit-graph
 *   deltaChainHistory(objectsDir, count, restart, filler)  a linear history stored as delta chains
 *   packPerCommit(objectsDir, count, parent)  a linear history, each commit alone in its own pack
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

const OBJ_COMMIT = 1;
const OBJ_OFS_DELTA = 6;

/** A pack holding `entries` (raw entry bytes, in order) under the given names, with its version-2 index. */
export function writePack(objectsDir: string, entries: { oid: string; bytes: Uint8Array }[], name = "bad"): void {
  const header = Buffer.alloc(12);
  header.write("PACK", 0, "latin1");
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const offsets: number[] = [];
  let size = 12;
  for (const entry of entries) {
    offsets.push(size);
    size += entry.bytes.length;
  }
  const pack = Buffer.concat([header, ...entries.map((entry) => entry.bytes), Buffer.alloc(20)]);
  const sorted = entries.map((entry, i) => ({ oid: entry.oid, offset: offsets[i] as number }));
  sorted.sort((a, b) => a.oid.localeCompare(b.oid));
  const fanout = Buffer.alloc(1024);
  let at = 0;
  for (let byte = 0; byte < 256; byte++) {
    while (at < sorted.length && Number.parseInt((sorted[at] as { oid: string }).oid.slice(0, 2), 16) <= byte) at++;
    fanout.writeUInt32BE(at, byte * 4);
  }
  const offsetTable = Buffer.alloc(4 * sorted.length);
  sorted.forEach((entry, i) => {
    offsetTable.writeUInt32BE(entry.offset, i * 4);
  });
  const idx = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...sorted.map((entry) => Buffer.from(entry.oid, "hex")),
    Buffer.alloc(4 * sorted.length),
    offsetTable,
    Buffer.alloc(40),
  ]);
  const dir = join(objectsDir, "pack");
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `pack-${name.padStart(40, "0")}`);
  writeFileSync(`${base}.pack`, pack);
  writeFileSync(`${base}.idx`, idx);
}

/** A pack entry header: type and size in git's varint. */
export function entryHeader(type: number, size: number): number[] {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) | 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

/** An OFS_DELTA base distance, in git's encoding (each continuation byte adds one). */
function ofsDistance(distance: number): number[] {
  const bytes = [distance & 0x7f];
  for (let rest = Math.floor(distance / 128); rest > 0; rest = Math.floor(rest / 128)) {
    rest--;
    bytes.unshift(0x80 | (rest & 0x7f));
  }
  return bytes;
}

function varint(n: number): number[] {
  const bytes: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) bytes.push((n & 0x7f) | 0x80);
  return [...bytes, n];
}

/** Delta instructions: copy `size` bytes of the base at `offset`, or insert `data`. */
type DeltaOp = { copy: number; size: number } | { insert: Uint8Array };

/** A raw (not deflated) delta building `targetSize` bytes from a `baseSize`-byte base. */
function delta(baseSize: number, targetSize: number, ops: DeltaOp[]): Buffer {
  const out = [...varint(baseSize), ...varint(targetSize)];
  for (const op of ops) {
    if ("insert" in op) {
      for (let i = 0; i < op.insert.length; i += 127) {
        const piece = op.insert.subarray(i, i + 127);
        out.push(piece.length, ...piece);
      }
      continue;
    }
    for (let done = 0; done < op.size; done += 0x10000) {
      const offset = op.copy + done;
      const size = Math.min(0x10000, op.size - done);
      // Four offset bytes and, unless it is 64 KiB (written as none), three size bytes.
      const sizeBytes = size === 0x10000 ? [] : [size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff];
      out.push(0x80 | 0x0f | (sizeBytes.length > 0 ? 0x70 : 0), ...[0, 8, 16, 24].map((s) => (offset >>> s) & 0xff));
      out.push(...sizeBytes);
    }
  }
  return Buffer.from(out);
}

/** An object's name: the SHA-1 of `<type> <size>\0<body>`. */
export function objectId(type: string, body: Uint8Array): string {
  return createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");
}

/** A commit's body, as git writes it; `extraHeaders` go after the committer line. */
export function commitText(options: {
  parents: string[];
  message: string;
  time?: number;
  extraHeaders?: string;
  tree?: string;
}): Buffer {
  const time = options.time ?? 1_700_000_000;
  const person = `Mallory <m@example.com> ${time} +0000`;
  return Buffer.from(
    `tree ${options.tree ?? "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}\n` +
      options.parents.map((parent) => `parent ${parent}\n`).join("") +
      `author ${person}\ncommitter ${person}\n${options.extraHeaders ?? ""}\n${options.message}\n`,
  );
}

/** A loose object; returns its name. */
export function writeLoose(objectsDir: string, type: string, body: Uint8Array): string {
  const oid = objectId(type, body);
  const dir = join(objectsDir, oid.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, oid.slice(2)), deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])));
  return oid;
}

const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;

/**
 * A single-file commit-graph (`objects/info/commit-graph`) of `commits`, given sorted by name; parents
 * are indexes into the sorted list. `octopus`: the commit's parents after the first are entries of
 * `edges` from that index on (the last one's top bit set by the caller), as git writes an EDGE chunk.
 */
export function writeCommitGraph(
  objectsDir: string,
  commits: { oid: string; parents: number[]; octopus?: number; generation: number; time: number }[],
  edges: number[] = [],
): void {
  const count = commits.length;
  const fanout = Buffer.alloc(1024);
  let at = 0;
  for (let byte = 0; byte < 256; byte++) {
    while (at < count && Number.parseInt((commits[at] as { oid: string }).oid.slice(0, 2), 16) <= byte) at++;
    fanout.writeUInt32BE(at, byte * 4);
  }
  const oids = Buffer.concat(commits.map((commit) => Buffer.from(commit.oid, "hex")));
  const cdat = Buffer.alloc(count * 36);
  commits.forEach((commit, i) => {
    const o = i * 36;
    Buffer.from("4b825dc642cb6eb9a060e54bf8d69288fbee4904", "hex").copy(cdat, o);
    cdat.writeUInt32BE(commit.parents[0] ?? NO_PARENT, o + 20);
    const second =
      commit.octopus !== undefined ? (EXTRA_EDGES | commit.octopus) >>> 0 : (commit.parents[1] ?? NO_PARENT);
    cdat.writeUInt32BE(second, o + 24);
    cdat.writeUInt32BE(((commit.generation << 2) | Math.floor(commit.time / 2 ** 32)) >>> 0, o + 28);
    cdat.writeUInt32BE(commit.time >>> 0, o + 32);
  });
  const edge = Buffer.alloc(edges.length * 4);
  edges.forEach((value, i) => {
    edge.writeUInt32BE(value >>> 0, i * 4);
  });
  const chunks: [string, Buffer][] = [
    ["OIDF", fanout],
    ["OIDL", oids],
    ["CDAT", cdat],
  ];
  if (edges.length > 0) chunks.push(["EDGE", edge]);
  const header = Buffer.from([0x43, 0x47, 0x50, 0x48, 1, 1, chunks.length, 0]);
  const table = Buffer.alloc((chunks.length + 1) * 12);
  let offset = header.length + table.length;
  chunks.forEach(([id, body], i) => {
    table.write(id, i * 12, "latin1");
    table.writeUInt32BE(0, i * 12 + 4);
    table.writeUInt32BE(offset, i * 12 + 8);
    offset += body.length;
  });
  table.writeUInt32BE(offset, chunks.length * 12 + 8);
  const info = join(objectsDir, "info");
  mkdirSync(info, { recursive: true });
  writeFileSync(
    join(info, "commit-graph"),
    Buffer.concat([header, table, ...chunks.map(([, body]) => body), Buffer.alloc(20)]),
  );
}

/**
 * A linear history of `count` commits in one pack, each stored as a delta of the one before; every
 * `restart` commits a whole object starts a new chain. `filler` bytes of message make each commit large.
 * Returns the tip.
 */
export function deltaChainHistory(objectsDir: string, count: number, restart: number, filler: number): string {
  const tail = Buffer.from(`${"a".repeat(filler)}\n`);
  const entries: { oid: string; bytes: Uint8Array }[] = [];
  let previous: { text: Buffer; length: number } | null = null;
  let parents: string[] = [];
  for (let i = 0; i < count; i++) {
    const head = commitText({ parents, message: `c${i}`, time: 1_700_000_000 + i });
    const text = Buffer.concat([head, tail]);
    const oid = objectId("commit", text);
    let bytes: Uint8Array;
    if (previous === null || i % restart === 0) {
      bytes = new Uint8Array([...entryHeader(OBJ_COMMIT, text.length), ...deflateSync(text)]);
    } else {
      // The new headers inserted, the message's body copied from the commit before.
      const raw = delta(previous.text.length, text.length, [
        { insert: head },
        { copy: previous.text.length - tail.length, size: tail.length },
      ]);
      bytes = new Uint8Array([
        ...entryHeader(OBJ_OFS_DELTA, raw.length),
        ...ofsDistance(previous.length),
        ...deflateSync(raw),
      ]);
    }
    entries.push({ oid, bytes });
    previous = { text, length: bytes.length };
    parents = [oid];
  }
  writePack(objectsDir, entries);
  return parents[0] as string;
}

/** A linear history of `count` commits on `parent`, each alone in its own pack (as many fetches leave them); the tip. */
export function packPerCommit(objectsDir: string, count: number, parent?: string): string {
  let parents = parent === undefined ? [] : [parent];
  for (let i = 0; i < count; i++) {
    const text = commitText({ parents, message: `p${i}`, time: 1_700_000_000 + i });
    const oid = objectId("commit", text);
    const bytes = new Uint8Array([...entryHeader(OBJ_COMMIT, text.length), ...deflateSync(text)]);
    writePack(objectsDir, [{ oid, bytes }], `p${i}`);
    parents = [oid];
  }
  return parents[0] as string;
}
