import { join } from "node:path";
import { corrupt, findOid, HASH_BYTES, isLink, PositionalFile, readLines, view } from "./positional-file.ts";

/** git's own octopus merges stay far below this; more is a hostile commit. */
export const MAX_PARENTS = 256;

/** One graph file, its chunks located; a position in it is `base` (commits in the layers below) + index. */
type Layer = ReturnType<typeof openLayer>;

const CDAT_BYTES = HASH_BYTES + 16;
const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;
/** git reads split chains of at most this many layers in practice; more is a broken chain file. */
const MAX_LAYERS = 64;

/** The commit-graph, single or split (base layer first): parents and generations without reading commits. */
export class CommitGraph {
  private constructor(
    readonly layers: Layer[],
    readonly total: number,
  ) {}

  /** `null` when the repository has none; throws `ObjectReadError` when the graph is malformed. */
  static open(objectsDir: string): CommitGraph | null {
    using opened = new DisposableStack();
    const files: PositionalFile[] = [];
    const info = join(objectsDir, "info");
    if (isLink(info)) corrupt(`${info} is a link, not read`);
    const single = opened.use(PositionalFile.open(join(info, "commit-graph")));
    if (single !== null) files.push(single);
    else {
      const chainDir = join(info, "commit-graphs");
      if (isLink(chainDir)) corrupt(`${chainDir} is a link, not read`);
      const chain = readLines(join(chainDir, "commit-graph-chain"), MAX_LAYERS * 42);
      if (chain === null) return null;
      const names = chain.filter((line) => line !== "");
      if (names.length === 0 || names.length > MAX_LAYERS || names.some((name) => !/^[0-9a-f]{40}$/.test(name)))
        corrupt(`${chainDir}/commit-graph-chain is malformed`);
      for (const name of names) {
        const file = opened.use(PositionalFile.open(join(chainDir, `graph-${name}.graph`)));
        files.push(file ?? corrupt(`commit-graph layer graph-${name}.graph is missing`));
      }
    }
    const layers: Layer[] = [];
    let total = 0;
    for (const file of files) {
      const layer = openLayer(file, total);
      layers.push(layer);
      total += layer.count;
    }
    opened.move();
    return new CommitGraph(layers, total);
  }

  /** The position of `oid` (20 raw bytes), newest layer first; `null` when the graph lacks it. */
  find(oid: Uint8Array): number | null {
    for (const layer of this.layers.toReversed()) {
      const index = findOid(layer.file, layer.fanout, layer.oids, oid);
      if (index !== null) return layer.base + index;
    }
    return null;
  }

  /** The hex name at `position`: only for a commit a reply names. */
  oidAt(position: number): string {
    const [layer, index] = this.#locate(position);
    return Buffer.from(layer.file.read(layer.oids + index * HASH_BYTES, HASH_BYTES)).toString("hex");
  }

  /** Parents by position; generation is the topological level (v1), above every ancestor's. */
  commitAt(position: number): { parents: number[]; generation: number; time: number } {
    const [{ file, data, edges }, index] = this.#locate(position);
    const entry = view(file.read(data + index * CDAT_BYTES + HASH_BYTES, 16));
    const parents: number[] = [];
    const add = (parent: number) => {
      if (parent >= this.total) corrupt(`${file.path} names parent position ${parent} of ${this.total}`);
      parents.push(parent);
    };
    const first = entry.getUint32(0);
    const second = entry.getUint32(4);
    if (first !== NO_PARENT) add(first);
    if (second & EXTRA_EDGES) {
      // An octopus merge: the second slot points into the edge list, whose last entry has the top bit set.
      if (edges === undefined) corrupt(`${file.path} lacks the EDGE chunk a merge needs`);
      for (let at = edges.start + (second & ~EXTRA_EDGES) * 4; ; at += 4) {
        if (at + 4 > edges.end) corrupt(`${file.path} has a broken edge list`);
        if (parents.length === MAX_PARENTS)
          corrupt(`commit-graph position ${position} has more than ${MAX_PARENTS} parents`);
        const edge = view(file.read(at, 4)).getUint32(0);
        add(edge & ~EXTRA_EDGES);
        if (edge & EXTRA_EDGES) break;
      }
    } else if (second !== NO_PARENT) {
      add(second);
    }
    const high = entry.getUint32(8);
    return { parents, generation: high >>> 2, time: (high & 3) * 2 ** 32 + entry.getUint32(12) };
  }

  [Symbol.dispose](): void {
    for (const layer of this.layers) layer.file[Symbol.dispose]();
  }

  #locate(position: number): [Layer, number] {
    for (const layer of this.layers) {
      if (position < layer.base + layer.count) return [layer, position - layer.base];
    }
    return corrupt(`commit-graph position ${position} is out of range`);
  }
}

function openLayer(file: PositionalFile, base: number) {
  const header = view(file.read(0, 8));
  if (header.getUint32(0) !== 0x43475048) corrupt(`${file.path} is not a commit-graph`);
  if (header.getUint8(4) !== 1) corrupt(`${file.path} has an unknown commit-graph version`);
  if (header.getUint8(5) !== 1) corrupt(`${file.path} is not a SHA-1 commit-graph`);
  const chunkCount = header.getUint8(6);
  const chunks = new Map<string, { start: number; end: number }>();
  const table = view(file.read(8, (chunkCount + 1) * 12));
  for (let i = 0; i < chunkCount; i++) {
    const id = String.fromCharCode(...file.read(8 + i * 12, 4));
    const start = table.getUint32(i * 12 + 4) * 2 ** 32 + table.getUint32(i * 12 + 8);
    const end = table.getUint32(i * 12 + 16) * 2 ** 32 + table.getUint32(i * 12 + 20);
    if (start > end || end > file.size) corrupt(`${file.path} has chunk ${id} outside the file`);
    chunks.set(id, { start, end });
  }
  const need = (id: string) => chunks.get(id) ?? corrupt(`${file.path} lacks its ${id} chunk`);
  const fanout = need("OIDF");
  if (fanout.end - fanout.start !== 1024) corrupt(`${file.path} has a malformed fan-out chunk`);
  const fanoutView = view(new Uint8Array(file.read(fanout.start, 1024)));
  const count = fanoutView.getUint32(255 * 4);
  const oids = need("OIDL");
  const data = need("CDAT");
  if (oids.end - oids.start !== count * HASH_BYTES || data.end - data.start !== count * CDAT_BYTES)
    corrupt(`${file.path} has chunks that disagree on the commit count`);
  return { file, base, count, fanout: fanoutView, oids: oids.start, data: data.start, edges: chunks.get("EDGE") };
}
