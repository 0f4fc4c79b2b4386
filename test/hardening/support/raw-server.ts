/**
 * The compiled binary driven with raw JSON-RPC lines instead of the SDK's client: tests can send
 * anything (broken JSON, batches, duplicate ids, huge lines), pipeline thousands of requests, and
 * check every byte the server writes to stdout.
 *
 *   const server = await RawServer.start({ cwd, env });
 *   await server.initialize();
 *   const result = await server.call("get_current_branch");   // { isError, envelope, structured }
 *   server.stdoutProblems()                                    // stdout lines that are not JSON-RPC
 *   await server.close();                                      // EOF, then the exit code
 */
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { binaryPath } from "../../support/binary.ts";

export interface RpcResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface ToolResult {
  isError: boolean;
  text: string;
  envelope: { status: "ok" | "error"; data?: unknown; error?: { code: string; message: string; hint?: string } };
  structured: unknown;
}

export interface RawServerOptions {
  cwd: string;
  env: Record<string, string>;
  args?: string[];
  /** A command prefix the binary runs under (`setpriv …`, `strace …`). */
  wrapper?: string[];
}

const LATEST_PROTOCOL = "2025-11-25";

export class RawServer {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  /** Every complete stdout line, in order. */
  readonly lines: string[] = [];
  /** Responses with `id: null` (parse errors and the like). */
  readonly nullIdResponses: RpcResponse[] = [];
  readonly notifications: Array<{ method: string; params?: unknown }> = [];
  /** Requests the server sent us (roots/list, …), answered with an error unless a handler is set. */
  readonly serverRequests: Array<{ id: string | number; method: string }> = [];
  /** Answers server-to-client requests; the default refuses them. */
  onServerRequest: (method: string, params: unknown) => unknown = () => {
    throw new Error("not supported");
  };
  readonly exited: Promise<number>;
  readonly #waiters = new Map<string, Array<(response: RpcResponse) => void>>();
  readonly #problems: string[] = [];
  #stderr = "";
  #watchers: Array<() => boolean> = [];
  #partial = "";
  #nextId = 1_000_000;
  #closing = false;
  readonly #drained: Promise<void>;

  private constructor(proc: Subprocess<"pipe", "pipe", "pipe">) {
    this.proc = proc;
    this.#drained = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
    this.exited = proc.exited;
  }

  static async start(options: RawServerOptions): Promise<RawServer> {
    const binary = await binaryPath();
    const proc = Bun.spawn([...(options.wrapper ?? []), binary, ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    return new RawServer(proc);
  }

  get pid(): number {
    return this.proc.pid;
  }

  stderr(): string {
    return this.#stderr;
  }

  /**
   * Resolves once `condition` holds, checked now and after every stdout line and stderr chunk; the
   * event a test awaits ("the server logged that it is waiting") instead of sleeping. Rejects if
   * the server exits first.
   */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#watchers.push(() => {
        if (!condition()) return false;
        resolve();
        return true;
      });
      void this.exited.then(() => {
        if (!condition()) reject(new Error("the server exited before the awaited condition held"));
      });
    });
  }

  /** Responses to `id` seen so far. */
  responsesTo(id: string | number): RpcResponse[] {
    return this.lines.flatMap((line) => {
      try {
        const message = JSON.parse(line) as RpcResponse;
        return message.id === id && ("result" in message || "error" in message) ? [message] : [];
      } catch {
        return [];
      }
    });
  }

  #changed(): void {
    this.#watchers = this.#watchers.filter((done) => !done());
  }

  /** stdout lines that are not a JSON-RPC 2.0 message, and a final line without its newline. */
  stdoutProblems(): string[] {
    return this.#partial === "" ? [...this.#problems] : [...this.#problems, `unterminated: ${this.#partial}`];
  }

  /** Writes raw text (a newline is not added). */
  write(text: string | Uint8Array): void {
    this.proc.stdin.write(text);
    this.proc.stdin.flush();
  }

  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and waits for the response with its id (the next one, should ids repeat). */
  request(method: string, params?: unknown, options: { id?: string | number; timeoutMs?: number } = {}) {
    const id = options.id ?? this.#nextId++;
    const response = this.response(id, options.timeoutMs);
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return response;
  }

  /** The next response carrying `id`. */
  response(id: string | number, timeoutMs = 20_000): Promise<RpcResponse> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to id ${id} within ${timeoutMs} ms`)), timeoutMs);
      const key = JSON.stringify(id);
      const list = this.#waiters.get(key) ?? [];
      list.push((response) => {
        clearTimeout(timer);
        resolve(response);
      });
      this.#waiters.set(key, list);
    });
  }

  async initialize(options: { protocolVersion?: string; capabilities?: Record<string, unknown> } = {}) {
    const response = await this.request("initialize", {
      protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL,
      capabilities: options.capabilities ?? {},
      clientInfo: { name: "twig-mcp-hardening", version: "0" },
    });
    if (!response.result) throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return response.result;
  }

  /** tools/call, unwrapped; throws on a JSON-RPC error. */
  async call(name: string, args: unknown = {}, options: { id?: string | number; timeoutMs?: number } = {}) {
    const response = await this.request("tools/call", { name, arguments: args }, options);
    return toolResult(response);
  }

  /** Resident set size in KiB (Linux). */
  rssKiB(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (!match) throw new Error("no VmRSS");
    return Number(match[1]);
  }

  /** Closes stdin (EOF) and waits for the exit code. */
  async close(): Promise<number> {
    if (!this.#closing) {
      this.#closing = true;
      try {
        this.proc.stdin.end();
      } catch {
        // already closed
      }
    }
    const code = await this.exited;
    await this.#drained;
    return code;
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }

  async #readStdout(): Promise<void> {
    // Fatal: a byte that is not UTF-8 is itself a problem on a JSON-RPC stream.
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for await (const chunk of this.proc.stdout) {
      try {
        this.#partial += decoder.decode(chunk, { stream: true });
      } catch {
        this.#problems.push(`bytes that are not UTF-8: ${Buffer.from(chunk).toString("hex").slice(0, 80)}`);
        continue;
      }
      let newline = this.#partial.indexOf("\n");
      while (newline !== -1) {
        const line = this.#partial.slice(0, newline);
        this.#partial = this.#partial.slice(newline + 1);
        this.#onLine(line);
        this.#changed();
        newline = this.#partial.indexOf("\n");
      }
    }
    try {
      this.#partial += decoder.decode();
    } catch {
      this.#problems.push("stdout ended inside a UTF-8 sequence");
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) {
      this.#stderr += decoder.decode(chunk, { stream: true });
      this.#changed();
    }
  }

  #onLine(line: string): void {
    this.lines.push(line);
    if (line.trim() !== line || line === "") {
      this.#problems.push(`blank or padded line: ${JSON.stringify(line.slice(0, 80))}`);
      if (line.trim() === "") return;
    }
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      this.#problems.push(line);
      return;
    }
    if (!isJsonRpcMessage(message)) {
      this.#problems.push(line);
      return;
    }
    if (typeof message.method === "string") {
      if ("id" in message) {
        const id = message.id as string | number;
        this.serverRequests.push({ id, method: message.method });
        let reply: Record<string, unknown>;
        try {
          reply = { result: this.onServerRequest(message.method, message.params) };
        } catch (error) {
          reply = { error: { code: -32601, message: String(error) } };
        }
        if (!this.#closing) this.send({ jsonrpc: "2.0", id, ...reply });
      } else {
        this.notifications.push({ method: message.method, params: message.params });
      }
      return;
    }
    const response = message as unknown as RpcResponse;
    if (response.id === null) {
      this.nullIdResponses.push(response);
      return;
    }
    const key = JSON.stringify(response.id);
    const list = this.#waiters.get(key);
    const waiter = list?.shift();
    if (list && list.length === 0) this.#waiters.delete(key);
    if (waiter) waiter(response);
    else this.#problems.push(`unexpected response: ${line.slice(0, 200)}`);
  }
}

/** A JSON-RPC 2.0 request, notification, or response (result xor error), as the server may write it. */
function isJsonRpcMessage(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return false;
  const idOk = typeof message.id === "string" || (typeof message.id === "number" && Number.isInteger(message.id));
  if (typeof message.method === "string") return !("id" in message) || idOk;
  if (!idOk && message.id !== null) return false;
  const hasResult = "result" in message && typeof message.result === "object" && message.result !== null;
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  const hasError =
    typeof error === "object" && error !== null && Number.isInteger(error.code) && typeof error.message === "string";
  return hasResult !== hasError;
}

export function toolResult(response: RpcResponse): ToolResult {
  if (!response.result) throw new Error(`tools/call failed: ${JSON.stringify(response.error)}`);
  const content = response.result.content as Array<{ type: string; text: string }>;
  const text = content[0]?.text ?? "";
  return {
    isError: response.result.isError === true,
    text,
    envelope: JSON.parse(text),
    structured: response.result.structuredContent,
  };
}
