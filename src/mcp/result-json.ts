import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface Entry {
  text: string;
  json: string;
  /** The data of a reusable answer (tools/reusable-answer.ts), whose reply body is kept. */
  reusable: object | undefined;
}

/**
 * A tool's data is serialised once for the upstream text envelope; writing the reply would
 * serialise it a second time as `structuredContent` — for a 10,000-branch tree, megabytes walked
 * twice. The handler leaves the JSON it already has here under the request's id, and the
 * transport splices it in instead of serialising `structuredContent` again.
 *
 * An entry is used only for a reply whose text content is the very string made from that JSON
 * (the SDK copies the result object while validating it, but keeps its strings), so a stale entry
 * — a cancelled call, an id the client reused — can never stand in for another reply. For a
 * reusable answer the whole result body (the text escaped as a JSON string, then the data) is
 * kept with the answer from its first repeat on, and written again as it is.
 */
export class ResultJson {
  readonly #byId = new Map<string | number, Entry>();
  readonly #bodies = new WeakMap<object, Body>();
  readonly #writtenOnce = new WeakSet<object>();
  readonly #bytesFrom: number;

  constructor(bytesFrom = BYTES_FROM) {
    this.#bytesFrom = bytesFrom;
  }

  /** `text` is the reply's text content, built from `json` (the data's JSON). */
  remember(id: string | number, text: string, json: string, reusable?: object): void {
    this.#byId.delete(id);
    this.#byId.set(id, { text, json, reusable });
    // Only replies in flight are kept; anything older belongs to a call that never answered.
    if (this.#byId.size > 64) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
  }

  /**
   * The whole line written for `message`, newline included, reusing a remembered
   * `structuredContent` when it applies. A large repeated reusable answer comes as bytes: its body
   * is encoded to UTF-8 once and copied after the reply's own id.
   */
  line(message: JSONRPCMessage): string | Uint8Array {
    const spliced = this.#splice(message);
    if (spliced === null) return `${JSON.stringify(message)}\n`;
    const { prefix, body } = spliced;
    if (!body.kept || body.body.length < this.#bytesFrom) return `${prefix}${body.body}}\n`;
    body.bytes ??= Buffer.from(body.body);
    return Buffer.concat([Buffer.from(prefix), body.bytes, CLOSE_LINE]);
  }

  #splice(message: JSONRPCMessage): { prefix: string; body: Body } | null {
    if (!("id" in message) || message.id === undefined) return null;
    const entry = this.#byId.get(message.id);
    if (entry === undefined) return null;
    this.#byId.delete(message.id);
    if (!("result" in message)) return null;
    const body = this.#body(message.result as Record<string, unknown>, entry);
    if (body === null) return null;
    return { prefix: `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`, body };
  }

  #body(result: Record<string, unknown>, entry: Entry): Body | null {
    const { structuredContent, ...rest } = result as { structuredContent?: unknown; content?: unknown };
    const content = rest.content;
    const first: unknown = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
    const text = typeof first === "object" && first !== null ? (first as { text?: unknown }).text : undefined;
    if (structuredContent === undefined || text !== entry.text) return null;
    // Only a body around nothing but the envelope depends on the answer alone, so only it is kept.
    const reusable = entry.reusable !== undefined && isPlainEnvelope(rest) ? entry.reusable : undefined;
    const kept = reusable === undefined ? undefined : this.#bodies.get(reusable);
    if (kept !== undefined && kept.text === text) return kept;
    const head = JSON.stringify(rest);
    const json =
      head === "{}" ? `{"structuredContent":${entry.json}}` : `${head.slice(0, -1)},"structuredContent":${entry.json}}`;
    // Kept from the second time an answer is written: a tree drawn anew and then replaced is
    // written once, and keeping its megabytes until it is dropped would only raise peak memory.
    if (reusable !== undefined) {
      if (this.#writtenOnce.has(reusable))
        this.#bodies.set(reusable, { text, body: json, kept: true, bytes: undefined });
      else this.#writtenOnce.add(reusable);
    }
    return { text, body: json, kept: false, bytes: undefined };
  }
}

/** A reply body (the `result` member's JSON); `kept` when it is a reusable answer's, made before. */
interface Body {
  text: string;
  body: string;
  kept: boolean;
  bytes: Uint8Array | undefined;
}

/**
 * From this size a repeat is written from kept bytes. Encoding a string that holds non-ASCII
 * characters (the tree's box drawing) costs about a millisecond per 2.5 MB: a repeated 250 KB tree
 * (1,000 branches) answers 15 % faster from bytes. An ASCII reply gains nothing, and loses nothing.
 */
const BYTES_FROM = 64 * 1024;
const CLOSE_LINE = Buffer.from("}\n");

/**
 * `{ content: [{ type: "text", text }], isError: false }` and nothing else: a body made from such
 * a result depends on its text alone, so it can be written again for the same text.
 */
function isPlainEnvelope(rest: Record<string, unknown>): boolean {
  const keys = Object.keys(rest);
  if (keys.length !== 2 || rest.isError !== false || !Array.isArray(rest.content) || rest.content.length !== 1) {
    return false;
  }
  const item: unknown = rest.content[0];
  if (typeof item !== "object" || item === null) return false;
  const fields = item as Record<string, unknown>;
  return Object.keys(fields).length === 2 && fields.type === "text" && typeof fields.text === "string";
}
