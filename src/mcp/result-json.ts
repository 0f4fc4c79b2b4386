import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool's data is serialised once for the upstream text envelope; writing the reply would
 * serialise it a second time as `structuredContent` — for a 10,000-branch tree, megabytes walked
 * twice. The handler leaves the JSON it already has here under the request's id, and the
 * transport splices it in instead of serialising `structuredContent` again.
 *
 * An entry is used only for a reply whose text content is the very string made from that JSON
 * (the SDK copies the result object while validating it, but keeps its strings), so a stale entry
 * — a cancelled call, an id the client reused — can never stand in for another reply.
 */
export class ResultJson {
  readonly #byId = new Map<string | number, { text: string; json: string }>();

  /** `text` is the reply's text content, built from `json` (the data's JSON). */
  remember(id: string | number, text: string, json: string): void {
    this.#byId.delete(id);
    this.#byId.set(id, { text, json });
    // Only replies in flight are kept; anything older belongs to a call that never answered.
    if (this.#byId.size > 64) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
  }

  /** The reply as one JSON line body, reusing a remembered `structuredContent` when it applies. */
  serialize(message: JSONRPCMessage): string {
    if (!("id" in message) || message.id === undefined) return JSON.stringify(message);
    const entry = this.#byId.get(message.id);
    if (entry === undefined) return JSON.stringify(message);
    this.#byId.delete(message.id);
    if (!("result" in message)) return JSON.stringify(message);
    const { structuredContent, ...rest } = message.result as { structuredContent?: unknown; content?: unknown };
    const content = rest.content;
    const text = Array.isArray(content) && content.length === 1 ? (content[0] as { text?: unknown }).text : undefined;
    if (structuredContent === undefined || text !== entry.text) return JSON.stringify(message);
    const head = JSON.stringify(rest);
    const result =
      head === "{}" ? `{"structuredContent":${entry.json}}` : `${head.slice(0, -1)},"structuredContent":${entry.json}}`;
    return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`;
  }
}
