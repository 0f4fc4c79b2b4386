/**
 * Drives an MCP server over stdio with raw newline-delimited JSON-RPC: no SDK client, so nothing
 * but the server and the pipe is measured. Times come from `performance.now()`; a reply's time is
 * taken when its closing newline arrives, before the harness parses it.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export const PROTOCOL_VERSION = "2025-06-18";

export interface Reply {
  /** The parsed JSON-RPC response. */
  message: { id: number; result?: Record<string, unknown>; error?: { code: number; message: string } };
  /** `performance.now()` when the reply's last byte arrived. */
  at: number;
  /** Size of the reply line in bytes (UTF-8, without the newline). */
  bytes: number;
}

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  /** Collect the server's stderr (for error messages); otherwise it is discarded. */
  keepStderr?: boolean;
}

interface Waiter {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

export class StdioServer {
  /** `performance.now()` just before the process was spawned. */
  readonly spawnedAt: number;
  readonly #proc: Subprocess<"pipe", "pipe", "pipe" | "ignore">;
  readonly #waiting = new Map<number, Waiter>();
  readonly #label: string;
  #nextId = 1;
  #stderr = "";
  #stderrDone: Promise<void> = Promise.resolve();
  #exited = false;

  private constructor(label: string, command: readonly string[], options: SpawnOptions) {
    this.#label = label;
    this.spawnedAt = performance.now();
    this.#proc = Bun.spawn([...command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: options.keepStderr ? "pipe" : "ignore",
    });
    void this.#readReplies();
    if (options.keepStderr) this.#stderrDone = this.#readStderr().catch(() => {});
    void this.#proc.exited.then((code) => {
      this.#exited = true;
      const error = new Error(`${this.#label} exited (${code}) while a request was open${this.#stderrTail()}`);
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    });
  }

  static spawn(label: string, command: readonly string[], options: SpawnOptions): StdioServer {
    return new StdioServer(label, command, options);
  }

  get pid(): number {
    return this.#proc.pid;
  }

  get label(): string {
    return this.#label;
  }

  /** Sends a request and resolves with its reply; a JSON-RPC error rejects. */
  async request(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<Reply> {
    const reply = await this.requestRaw(method, params, timeoutMs);
    if (reply.message.error) {
      throw new Error(`${this.#label} ${method}: JSON-RPC error ${JSON.stringify(reply.message.error)}`);
    }
    return reply;
  }

  /** Sends a request and resolves with its reply, error or not. */
  requestRaw(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<Reply> {
    if (this.#exited) return Promise.reject(new Error(`${this.#label} has exited${this.#stderrTail()}`));
    const id = this.#nextId++;
    const reply = new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${this.#label} ${method}: no reply within ${timeoutMs} ms${this.#stderrTail()}`));
      }, timeoutMs);
      this.#waiting.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
    this.#write({ jsonrpc: "2.0", id, method, params });
    return reply;
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.#write({ jsonrpc: "2.0", method, params });
  }

  /** `initialize`, then `notifications/initialized`, as a client does; returns the reply. */
  async initialize(): Promise<Reply> {
    const reply = await this.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "twig-mcp-bench", version: "0.0.0" },
    });
    this.notify("notifications/initialized");
    return reply;
  }

  /** Calls a tool; the reply's `result` is the CallToolResult. A tool error (`isError`) throws. */
  async callTool(name: string, args: Record<string, unknown> = {}, timeoutMs?: number): Promise<Reply> {
    const reply = await this.request("tools/call", { name, arguments: args }, timeoutMs);
    if (reply.message.result?.isError === true) {
      const text = JSON.stringify(reply.message.result.content).slice(0, 500);
      throw new Error(`${this.#label} tools/call ${name} answered isError: ${text}`);
    }
    return reply;
  }

  /**
   * Peak resident set size so far, in KiB: `VmHWM` from `/proc/<pid>/status` (Linux only; `null`
   * elsewhere or once the process is gone).
   */
  peakRssKiB(): number | null {
    try {
      const status = readFileSync(`/proc/${this.#proc.pid}/status`, "utf8");
      const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  /**
   * CPU time the process has used so far, all threads together, in ms: the first field of
   * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds on the CPU). Unlike wall time it does not grow
   * while the process waits for a busy machine. Linux only; `null` elsewhere.
   */
  cpuMs(): number | null {
    try {
      let total = 0;
      for (const tid of readdirSync(`/proc/${this.#proc.pid}/task`)) {
        const fields = readFileSync(`/proc/${this.#proc.pid}/task/${tid}/schedstat`, "utf8").split(" ");
        total += Number(fields[0]);
      }
      return total / 1e6;
    } catch {
      return null;
    }
  }

  /** Closes stdin (an MCP client going away) and waits for exit; kills after `graceMs`. */
  async close(graceMs = 5_000): Promise<number> {
    try {
      this.#proc.stdin.end();
    } catch {
      // Already closed.
    }
    const timer = setTimeout(() => this.#proc.kill("SIGKILL"), graceMs);
    const code = await this.#proc.exited;
    clearTimeout(timer);
    await this.#stderrDone;
    return code;
  }

  /** Ends the process at once (for servers that do not exit when stdin closes). */
  async kill(): Promise<void> {
    this.#proc.kill("SIGKILL");
    await this.#proc.exited;
  }

  stderr(): string {
    return this.#stderr;
  }

  #write(message: unknown): void {
    this.#proc.stdin.write(`${JSON.stringify(message)}\n`);
    this.#proc.stdin.flush();
  }

  async #readReplies(): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of this.#proc.stdout as ReadableStream<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
        const at = performance.now();
        const line = partial + text.slice(start, newline);
        partial = "";
        start = newline + 1;
        this.#dispatch(line, at);
      }
      partial += text.slice(start);
    }
  }

  async #readStderr(): Promise<void> {
    const stream = this.#proc.stderr as ReadableStream<Uint8Array> | undefined;
    if (!stream) return;
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      this.#stderr += decoder.decode(chunk, { stream: true });
      if (this.#stderr.length > 200_000) this.#stderr = this.#stderr.slice(-100_000);
    }
  }

  #dispatch(line: string, at: number): void {
    if (line.trim() === "") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // Not JSON-RPC (a peer that logs to stdout); ignored as a client would.
    }
    const id = message.id;
    if (typeof id === "number" && ("result" in message || "error" in message)) {
      const waiter = this.#waiting.get(id);
      if (!waiter) return;
      this.#waiting.delete(id);
      waiter.resolve({ message: message as unknown as Reply["message"], at, bytes: Buffer.byteLength(line) });
      return;
    }
    if (id !== undefined && typeof message.method === "string") {
      // A request from the server (roots/list, sampling, …): this client offers none of them.
      this.#write({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    }
    // Notifications (logging, progress) are ignored.
  }

  #stderrTail(): string {
    const tail = this.#stderr.trim().split("\n").slice(-5).join("\n");
    return tail ? `\n${tail}` : "";
  }
}
