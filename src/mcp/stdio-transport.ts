import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { invalidParamsReply } from "./params-check.ts";

/** The longest line accepted as one message; longer ones are refused without being buffered. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Newline-delimited JSON-RPC over stdin/stdout, like the SDK's `StdioServerTransport`, but never
 * silent and never fatal on bad input: non-JSON gets `-32700`; a non-message, a batch (MCP
 * 2025-06-18 removed them) or an over-long line (dropped as it streams) gets `-32600`, with the
 * request's id when usable; a request whose params its method's schema refuses gets `-32602`
 * (the SDK's `Server` would answer `-32603`). Lines are split on raw bytes, so many chunks cost
 * linear time.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxMessageBytes: number;
  #chunks: Buffer[] = [];
  #pendingBytes = 0;
  /** Inside a line that is already too long: bytes are dropped until its newline. */
  #discarding = false;
  #started = false;
  #closed = false;

  constructor(
    stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
    options: { maxMessageBytes?: number } = {},
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("StdioServerTransport already started");
    this.#started = true;
    this.#listen("on");
  }

  #listen(how: "on" | "off"): void {
    this.#stdin[how]("data", this.#onData);
    this.#stdin[how]("error", this.#onInputError);
    this.#stdin[how]("end", this.#onEnd);
    this.#stdout[how]("error", this.#onOutputError);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listen("off");
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#chunks = [];
    this.#pendingBytes = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(`${JSON.stringify(message)}\n`);
  }

  #write(line: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      try {
        if (this.#stdout.write(line)) resolve();
        else this.#stdout.once("drain", resolve);
      } catch (error) {
        this.#onOutputError(error as Error);
        resolve();
      }
    });
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE);
      if (newline === -1) {
        this.#append(bytes);
        return;
      }
      this.#append(bytes.subarray(0, newline));
      bytes = bytes.subarray(newline + 1);
      this.#endOfLine();
      if (this.#closed) return;
    }
  };

  #append(bytes: Buffer): void {
    if (bytes.length === 0 || this.#discarding) return;
    if (this.#pendingBytes + bytes.length > this.#maxMessageBytes) {
      this.#discarding = true;
      this.#chunks = [];
      this.#pendingBytes = 0;
      return;
    }
    this.#chunks.push(bytes);
    this.#pendingBytes += bytes.length;
  }

  #endOfLine(): void {
    if (this.#discarding) {
      this.#discarding = false;
      this.#reply(
        null,
        ErrorCode.InvalidRequest,
        `Invalid Request: message longer than ${this.#maxMessageBytes} bytes was dropped`,
      );
      this.onerror?.(new Error(`dropped a message longer than ${this.#maxMessageBytes} bytes`));
      return;
    }
    const line = Buffer.concat(this.#chunks, this.#pendingBytes).toString("utf8");
    this.#chunks = [];
    this.#pendingBytes = 0;
    this.#handleLine(line);
  }

  #handleLine(line: string): void {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      this.#reply(null, ErrorCode.ParseError, "Parse error: not valid JSON");
      this.onerror?.(new Error(`parse error: ${(error as Error).message}`));
      return;
    }
    if (Array.isArray(json)) {
      this.#rejectBatch(json);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (parsed.success) {
      const refusal = invalidParamsReply(parsed.data);
      if (refusal !== null) {
        this.#write(`${JSON.stringify(refusal)}\n`).catch(() => {});
        return;
      }
      try {
        this.onmessage?.(parsed.data);
      } catch (error) {
        this.onerror?.(error as Error);
      }
      return;
    }
    this.#rejectInvalid(json);
  }

  #rejectInvalid(json: unknown): void {
    this.onerror?.(new Error("invalid JSON-RPC message"));
    const id = idToAnswer(json);
    if (id !== undefined) this.#reply(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message");
  }

  #rejectBatch(items: unknown[]): void {
    this.onerror?.(new Error(`JSON-RPC batch of ${items.length} refused`));
    const ids = items.map(idToAnswer).filter((id) => id !== null && id !== undefined);
    for (const id of ids.length > 0 ? ids : [null]) {
      this.#reply(
        id,
        ErrorCode.InvalidRequest,
        "Invalid Request: JSON-RPC batches are not supported; send one message per line",
      );
    }
  }

  #reply(id: RequestId | null, code: number, message: string): void {
    this.#write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`).catch(() => {});
  }

  readonly #onInputError = (error: Error): void => this.onerror?.(error);

  readonly #onEnd = (): void => {
    this.close().catch(() => {});
  };

  /** EPIPE and the like: nobody is reading our answers any more. */
  readonly #onOutputError = (error: Error): void => {
    this.onerror?.(error);
    this.close().catch(() => {});
  };
}

/**
 * Whom to tell that `json` is not a valid message: a response (`result` or `error`, no method) or a
 * notification (a method, no id) never (`undefined`), as JSON-RPC forbids answering them; anything
 * else by its id when that is usable, else with `null`.
 */
function idToAnswer(json: unknown): RequestId | null | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return null;
  if ("method" in json ? !("id" in json) : "result" in json || "error" in json) return undefined;
  const id = "id" in json ? json.id : null;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}
