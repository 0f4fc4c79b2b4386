import { join } from "node:path";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import { corrupt } from "./object-error.ts";
import { compareOid, view } from "./pack.ts";
import { PositionalFile } from "./positional-file.ts";

/** One commit as the graph records it: parents by position, its topological level and commit time. */
export interface GraphCommit {
  parents: number[];
  /** The topological level (generation number v1): greater than every ancestor's. */
  generation: number;
  /** Committer time, seconds since the epoch. */
  time: number;
}

const HASH_BYTES = 20;
const CDAT_BYTES = HASH_BYTES + 16;
const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;
/** A merge with more parents than this is a hostile edge list, not history. */
const MAX_PARENTS = 100_000;
/** git reads split chains of at most this many layers in practice; more is a broken chain file. */
const MAX_LAYERS = 64;

/** One graph file: its chunks located, every read by offset. */
class GraphLayer {
  readonly count: number;
  readonly #fanout: DataView;
  readonly #oids: number;
  readonly #data: number;
  readonly #edges: number | null;
  readonly #edgesEnd: number;

  constructor(
    readonly file: PositionalFile,
    /** Commits in the layers below this one: a position in this layer is `base + index`. */
    readonly base: number,
  ) {
    const header = view(file.read(0, 8));
    if (header.getUint32(0) !== 0x43475048) corrupt(`${file.path} is not a commit-graph`);
    if (file.read(4, 1)[0] !== 1) corrupt(`${file.path} has an unknown commit-graph version`);
    if (file.read(5, 1)[0] !== 1) corrupt(`${file.path} is not a SHA-1 commit-graph`);
    const chunkCount = file.read(6, 1)[0] as number;
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
    this.#fanout = view(new Uint8Array(file.read(fanout.start, 1024)));
    this.count = this.#fanout.getUint32(255 * 4);
    const oids = need("OIDL");
    const data = need("CDAT");
    if (oids.end - oids.start !== this.count * HASH_BYTES || data.end - data.start !== this.count * CDAT_BYTES) {
      corrupt(`${file.path} has chunks that disagree on the commit count`);
    }
    this.#oids = oids.start;
    this.#data = data.start;
    const edges = chunks.get("EDGE");
    this.#edges = edges?.start ?? null;
    this.#edgesEnd = edges?.end ?? 0;
  }

  find(oid: Uint8Array): number | null {
    const first = oid[0] as number;
    let low = first === 0 ? 0 : this.#fanout.getUint32((first - 1) * 4);
    let high = this.#fanout.getUint32(first * 4);
    if (low > high || high > this.count) corrupt(`${this.file.path} has a fan-out table out of order`);
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = compareOid(this.oidAt(middle), oid);
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return null;
  }

  oidAt(index: number): Uint8Array {
    return this.file.read(this.#oids + index * HASH_BYTES, HASH_BYTES);
  }

  commitAt(index: number, total: number): GraphCommit {
    const entry = view(this.file.read(this.#data + index * CDAT_BYTES + HASH_BYTES, 16));
    const parents: number[] = [];
    const add = (position: number) => {
      if (position >= total) corrupt(`${this.file.path} names parent position ${position} of ${total}`);
      parents.push(position);
    };
    const first = entry.getUint32(0);
    const second = entry.getUint32(4);
    if (first !== NO_PARENT) add(first);
    if (second & EXTRA_EDGES) {
      // An octopus merge: the second slot points into the edge list, whose last entry has the top bit set.
      let at = this.#edges ?? corrupt(`${this.file.path} lacks the EDGE chunk a merge needs`);
      at += (second & ~EXTRA_EDGES) * 4;
      for (;;) {
        if (at + 4 > this.#edgesEnd || parents.length > MAX_PARENTS)
          corrupt(`${this.file.path} has a broken edge list`);
        const edge = view(this.file.read(at, 4)).getUint32(0);
        add(edge & ~EXTRA_EDGES);
        if (edge & EXTRA_EDGES) break;
        at += 4;
      }
    } else if (second !== NO_PARENT) {
      add(second);
    }
    const high = entry.getUint32(8);
    return { parents, generation: high >>> 2, time: (high & 3) * 2 ** 32 + entry.getUint32(12) };
  }
}

/**
 * The commit-graph (`objects/info/commit-graph`, or the split layers named by
 * `objects/info/commit-graphs/commit-graph-chain`, base first): parents and generation numbers for
 * the commits it covers without reading a single commit object. Positions run across layers.
 */
export class CommitGraph {
  readonly #layers: GraphLayer[];
  readonly total: number;

  private constructor(layers: GraphLayer[]) {
    this.#layers = layers;
    this.total = layers.reduce((sum, layer) => sum + layer.count, 0);
  }

  /** `null` when the repository has none; throws `ObjectReadError` when the graph is malformed. */
  static open(objectsDir: string): CommitGraph | null {
    const single = PositionalFile.open(join(objectsDir, "info", "commit-graph"));
    if (single !== null) return CommitGraph.#build([single]);
    const chainDir = join(objectsDir, "info", "commit-graphs");
    const chain = PositionalFile.open(join(chainDir, "commit-graph-chain"));
    if (chain === null) return null;
    let names: string[];
    try {
      const text = decodeUtf8(chain.read(0, Math.min(chain.size, MAX_LAYERS * 42))) ?? "";
      names = text.split("\n").filter((line) => line !== "");
    } finally {
      chain.close();
    }
    if (names.length === 0 || names.length > MAX_LAYERS || names.some((name) => !/^[0-9a-f]{40}$/.test(name))) {
      corrupt(`${chainDir}/commit-graph-chain is malformed`);
    }
    const files: PositionalFile[] = [];
    try {
      for (const name of names) {
        const file = PositionalFile.open(join(chainDir, `graph-${name}.graph`));
        if (file === null) corrupt(`commit-graph layer graph-${name}.graph is missing`);
        files.push(file);
      }
    } catch (error) {
      for (const file of files) file.close();
      throw error;
    }
    return CommitGraph.#build(files);
  }

  static #build(files: PositionalFile[]): CommitGraph {
    const layers: GraphLayer[] = [];
    try {
      for (const file of files)
        layers.push(
          new GraphLayer(
            file,
            layers.reduce((sum, layer) => sum + layer.count, 0),
          ),
        );
    } catch (error) {
      for (const file of files) file.close();
      throw error;
    }
    return new CommitGraph(layers);
  }

  /** The position of `oid` (20 raw bytes), newest layer first; `null` when the graph lacks it. */
  find(oid: Uint8Array): number | null {
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const layer = this.#layers[i] as GraphLayer;
      const index = layer.find(oid);
      if (index !== null) return layer.base + index;
    }
    return null;
  }

  oidAt(position: number): string {
    const [layer, index] = this.#locate(position);
    return Buffer.from(layer.oidAt(index)).toString("hex");
  }

  commitAt(position: number): GraphCommit {
    const [layer, index] = this.#locate(position);
    return layer.commitAt(index, this.total);
  }

  close(): void {
    for (const layer of this.#layers) layer.file.close();
  }

  #locate(position: number): [GraphLayer, number] {
    for (const layer of this.#layers) {
      if (position < layer.base + layer.count) return [layer, position - layer.base];
    }
    return corrupt(`commit-graph position ${position} is out of range`);
  }
}
