import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ClientRequestSchema,
  ErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { isRemovedStateless } from "./stateless.ts";

/** The longest line accepted as one message; longer ones are refused without being buffered. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC like the SDK's `StdioServerTransport`, but never silent or fatal on bad
 * input: non-JSON gets `-32700`; a non-message, a batch (gone since MCP 2025-06-18) or an over-long
 * line `-32600`; params its method's schema refuses `-32602`. A broken stdout (EPIPE) closes the session.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #maxMessageBytes: number;
  #chunks: Buffer[] = [];
  #pendingBytes = 0;
  #closed = false;

  constructor(
    readonly stdin: Readable,
    readonly stdout: Writable,
    { maxMessageBytes = MAX_MESSAGE_BYTES } = {},
  ) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  async start(): Promise<void> {
    this.#listen("on");
  }

  #listen(how: "on" | "off"): void {
    this.stdin[how]("data", this.#onData);
    this.stdin[how]("error", this.#onInputError);
    this.stdin[how]("end", this.#onEnd);
    this.stdout[how]("error", this.#onOutputError);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listen("off");
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#chunks = [];
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    try {
      if (this.#closed || this.stdout.write(`${JSON.stringify(message)}\n`)) return;
    } catch (error) {
      return this.#onOutputError(error as Error);
    }
    await new Promise((resolve) => this.stdout.once("drain", resolve));
  }

  /** Lines are split on raw bytes, so many chunks cost linear time; an over-long one is dropped as it streams. */
  readonly #onData = (chunk: Buffer | string): void => {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    while (!this.#closed) {
      const newline = bytes.indexOf(0x0a);
      const piece = newline === -1 ? bytes : bytes.subarray(0, newline);
      this.#pendingBytes += piece.length;
      // Past the limit the line's bytes are dropped until its newline.
      if (this.#pendingBytes <= this.#maxMessageBytes) this.#chunks.push(piece);
      else this.#chunks = [];
      if (newline === -1) return;
      bytes = bytes.subarray(newline + 1);
      const line = Buffer.concat(this.#chunks).toString("utf8");
      const dropped = this.#pendingBytes > this.#maxMessageBytes;
      this.#chunks = [];
      this.#pendingBytes = 0;
      if (dropped) {
        const what = `message longer than ${this.#maxMessageBytes} bytes was dropped`;
        this.#refuse(null, ErrorCode.InvalidRequest, `Invalid Request: ${what}`, what);
      } else if (line.trim() !== "") this.#handleLine(line);
    }
  };

  #handleLine(line: string) {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      const report = `parse error: ${(error as Error).message}`;
      return this.#refuse(null, ErrorCode.ParseError, "Parse error: not valid JSON", report);
    }
    if (Array.isArray(json)) {
      const ids = json.map(idToAnswer).filter((id) => id !== null && id !== undefined);
      const why = "Invalid Request: JSON-RPC batches are not supported; send one message per line";
      for (const id of ids.length > 0 ? ids : [null]) this.#refuse(id, ErrorCode.InvalidRequest, why);
      return this.onerror?.(new Error(`JSON-RPC batch of ${json.length} refused`));
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const why = "Invalid Request: not a JSON-RPC 2.0 message";
      return this.#refuse(idToAnswer(json), ErrorCode.InvalidRequest, why, "invalid JSON-RPC message");
    }
    try {
      const refusal = isRemovedStateless(parsed.data) ? null : invalidParamsReply(parsed.data);
      if (refusal !== null) this.send(refusal);
      else this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** Answers `id` with an error (`undefined`: nobody to answer), and reports `report` if given. */
  #refuse(id: RequestId | null | undefined, code: number, message: string, report?: string): void {
    if (id !== undefined) this.send({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage);
    if (report !== undefined) this.onerror?.(new Error(report));
  }

  readonly #onInputError = (error: Error): void => this.onerror?.(error);

  readonly #onEnd = (): void => void this.close().catch(() => {});

  /** EPIPE and the like: nobody is reading our answers any more. */
  readonly #onOutputError = (error: Error): void => {
    this.onerror?.(error);
    this.close().catch(() => {});
  };
}

/** Whom to tell `json` is no valid message: its usable id, else `null`; `undefined` for a response or notification. */
function idToAnswer(json: unknown): RequestId | null | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return null;
  if ("method" in json ? !("id" in json) : "result" in json || "error" in json) return undefined;
  const id = "id" in json ? json.id : null;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/** Every client request's schema, by method, exactly as the SDK declares them. */
const SCHEMAS: ReadonlyMap<string, (typeof ClientRequestSchema.options)[number]> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/** `-32602` naming the first problem of a request its method's schema refuses (the SDK sends `-32603`, a zod dump). */
export function invalidParamsReply(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!("method" in message && "id" in message)) return null;
  const checked = SCHEMAS.get(message.method)?.safeParse(message);
  if (checked === undefined || checked.success) return null;
  const first = checked.error.issues[0];
  const path = first?.path.map(String).join(".") ?? "";
  const problem = first?.message.replace(/^Invalid input: /, "") ?? "invalid";
  const where = path === "" ? problem : `${path}: ${problem}`;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${where}` },
  };
}
