/**
 * A fault-injecting HTTP/1.1 proxy on 127.0.0.1, put in front of the fake GitHub or the fake Jira
 * (or answering on its own). It works on raw TCP so it can do what an HTTP server library will
 * not: drop a connection without answering, cut a body short of its Content-Length, never answer.
 *
 *   const proxy = await FaultProxy.start(fakeGitHub.url);
 *   proxy.add({ path: /\/pulls\/1$/, times: 2, fault: { kind: "respond", status: 502, body: HTML } });
 *   proxy.add({ path: "/rest/api/2/issue/SHOP-1", fault: { kind: "hang" } });
 *   proxy.requests      // every request: method, path, what was done, when the client hung up
 *
 * Requests no rule matches are forwarded to the upstream unchanged. Every response closes its
 * connection (`Connection: close`), so each request is one connection and hang-ups are visible.
 */
import type { Socket, TCPSocketListener } from "bun";

export type Fault =
  /** Wait, then forward (a slow server). */
  | { kind: "delay"; ms: number }
  /** Read the request and never answer. */
  | { kind: "hang" }
  /** Read the request and drop the connection without a byte of answer. */
  | { kind: "reset" }
  /** Answer with headers announcing `body` in full, send only its first `sendBytes`, then close. */
  | { kind: "truncate"; status?: number; body: string; sendBytes: number; headers?: Record<string, string> }
  /** A canned answer: an HTML error page, a 5xx, a 429 with Retry-After, … (`body` may be built from the request). */
  | {
      kind: "respond";
      status: number;
      body?: string | ((request: ProxiedRequest) => string);
      headers?: Record<string, string>;
      delayMs?: number;
    };

export interface FaultRule {
  method?: string;
  /** Exact path (without the query) or a pattern; any path when absent. */
  path?: string | RegExp;
  /** How many matching requests the rule answers (default 1; `Infinity` for all). */
  times?: number;
  fault: Fault;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The raw request target, query included. */
  target: string;
  headers: Record<string, string>;
  body: string;
  action: Fault["kind"] | "forward";
  startedAt: number;
  /** When we finished answering (absent while hanging). */
  answeredAt?: number;
  /** When the client closed the connection before we had answered. */
  abandonedAt?: number;
}

interface Connection {
  buffer: Buffer;
  request: ProxiedRequest | null;
  done: boolean;
}

const REASONS: Record<number, string> = {
  200: "OK",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  410: "Gone",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export const HTML_ERROR_PAGE =
  "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n";

export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  readonly #upstream: string | null;
  readonly #rules: Array<FaultRule & { remaining: number }> = [];
  readonly #sockets = new Set<Socket<Connection>>();
  #listener: TCPSocketListener<Connection> | null = null;
  #watchers: Array<() => boolean> = [];

  private constructor(upstream: string | null) {
    this.#upstream = upstream === null ? null : upstream.replace(/\/+$/, "");
  }

  /** `upstream`: where unmatched requests go; `null` answers them 404. */
  static async start(upstream: string | null): Promise<FaultProxy> {
    const proxy = new FaultProxy(upstream);
    proxy.#listener = Bun.listen<Connection>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open: (socket) => {
          socket.data = { buffer: Buffer.alloc(0), request: null, done: false };
          proxy.#sockets.add(socket);
        },
        data: (socket, chunk) => proxy.#onData(socket, chunk),
        close: (socket) => proxy.#onClose(socket),
        error: (socket) => proxy.#onClose(socket),
      },
    });
    return proxy;
  }

  get url(): string {
    if (!this.#listener) throw new Error("fault proxy not started");
    return `http://127.0.0.1:${this.#listener.port}`;
  }

  add(rule: FaultRule): this {
    this.#rules.push({ ...rule, remaining: rule.times ?? 1 });
    return this;
  }

  /** Forgets the rules and the recorded requests. */
  reset(): void {
    this.#rules.length = 0;
    this.requests.length = 0;
  }

  /**
   * Resolves once `condition` holds, checked now and whenever a request arrives, is answered or is
   * abandoned by its client: what a test awaits instead of sleeping ("the request is in", "the
   * client hung up").
   */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      this.#watchers.push(() => {
        if (!condition()) return false;
        resolve();
        return true;
      });
    });
  }

  /** The first request to `path`, once it has arrived. */
  async arrival(path: string | RegExp): Promise<ProxiedRequest> {
    await this.until(() => this.requestsTo(path).length > 0);
    return this.requestsTo(path)[0] as ProxiedRequest;
  }

  #changed(): void {
    this.#watchers = this.#watchers.filter((done) => !done());
  }

  requestsTo(path: string | RegExp): ProxiedRequest[] {
    return this.requests.filter((r) => (typeof path === "string" ? r.path === path : path.test(r.path)));
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.terminate();
    this.#sockets.clear();
    this.#listener?.stop(true);
    this.#listener = null;
  }

  #onData(socket: Socket<Connection>, chunk: Buffer): void {
    const state = socket.data;
    if (state.request !== null) return;
    state.buffer = Buffer.concat([state.buffer, chunk]);
    const headEnd = state.buffer.indexOf("\r\n\r\n");
    if (headEnd === -1) return;
    const head = state.buffer.subarray(0, headEnd).toString("latin1").split("\r\n");
    const [method = "GET", target = "/"] = (head[0] ?? "").split(" ");
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    const body = state.buffer.subarray(headEnd + 4);
    if (body.length < length) return;
    const path = target.split("?")[0] ?? "/";
    const rule = this.#take(method, path);
    const request: ProxiedRequest = {
      method,
      path,
      target,
      headers,
      body: body.subarray(0, length).toString("utf8"),
      action: rule?.fault.kind ?? "forward",
      startedAt: performance.now(),
    };
    state.request = request;
    this.requests.push(request);
    this.#changed();
    void this.#answer(socket, request, rule?.fault ?? null);
  }

  #take(method: string, path: string): FaultRule | null {
    for (const rule of this.#rules) {
      if (rule.remaining <= 0) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.path !== undefined && !(typeof rule.path === "string" ? rule.path === path : rule.path.test(path))) {
        continue;
      }
      rule.remaining--;
      return rule;
    }
    return null;
  }

  async #answer(socket: Socket<Connection>, request: ProxiedRequest, fault: Fault | null): Promise<void> {
    switch (fault?.kind) {
      case "hang":
        return;
      case "reset":
        this.#finish(socket, request);
        socket.terminate();
        return;
      case "truncate": {
        const body = Buffer.from(fault.body, "utf8");
        const head = responseHead(fault.status ?? 200, body.length, {
          "content-type": "application/json; charset=utf-8",
          ...fault.headers,
        });
        this.#finish(socket, request);
        await writeAll(socket, Buffer.concat([head, body.subarray(0, fault.sendBytes)]));
        socket.end();
        return;
      }
      case "respond": {
        if (fault.delayMs) await Bun.sleep(fault.delayMs);
        const text = typeof fault.body === "function" ? fault.body(request) : (fault.body ?? "");
        const body = Buffer.from(text, "utf8");
        this.#finish(socket, request);
        await writeAll(socket, Buffer.concat([responseHead(fault.status, body.length, fault.headers ?? {}), body]));
        socket.end();
        return;
      }
      case "delay":
        await Bun.sleep(fault.ms);
        break;
      case undefined:
        break;
    }
    if (socket.data.done) return;
    const forwarded = await this.#forward(request);
    if (socket.data.done) return;
    this.#finish(socket, request);
    await writeAll(socket, forwarded);
    socket.end();
  }

  async #forward(request: ProxiedRequest): Promise<Buffer> {
    if (this.#upstream === null) {
      const body = Buffer.from('{"message":"Not Found"}');
      return Buffer.concat([responseHead(404, body.length, { "content-type": "application/json" }), body]);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (!["host", "connection", "content-length", "accept-encoding", "keep-alive"].includes(name)) {
        headers.set(name, value);
      }
    }
    const response = await fetch(`${this.#upstream}${request.target}`, {
      method: request.method,
      headers,
      ...(request.body === "" || request.method === "GET" ? {} : { body: request.body }),
      redirect: "manual",
    });
    const body = Buffer.from(await response.arrayBuffer());
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!["content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"].includes(name)) {
        out[name] = value;
      }
    });
    return Buffer.concat([responseHead(response.status, body.length, out), body]);
  }

  #finish(socket: Socket<Connection>, request: ProxiedRequest): void {
    socket.data.done = true;
    request.answeredAt = performance.now();
    this.#changed();
  }

  #onClose(socket: Socket<Connection>): void {
    this.#sockets.delete(socket);
    const state = socket.data;
    if (state?.request && !state.done) {
      state.done = true;
      state.request.abandonedAt = performance.now();
      this.#changed();
    }
  }
}

function responseHead(status: number, length: number, headers: Record<string, string>): Buffer {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? "Status"}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${length}`, "connection: close", "", "");
  return Buffer.from(lines.join("\r\n"), "latin1");
}

/** Writes everything, waiting out back-pressure; gives up when the connection is gone. */
async function writeAll(socket: Socket<Connection>, bytes: Buffer): Promise<void> {
  let offset = 0;
  for (let spins = 0; offset < bytes.length && spins < 10_000; spins++) {
    const written = socket.write(bytes.subarray(offset));
    if (written < 0) return;
    offset += written;
    if (offset < bytes.length) await Bun.sleep(1);
  }
}
