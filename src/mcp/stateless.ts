import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type Implementation,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";

/** The stateless revision: no `initialize`; every request carries its version and capabilities in `_meta`. */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

/** The revision's code for a version the server does not serve (`UnsupportedProtocolVersionError`). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Resource not found until 2025-11-25; the stateless revision answers it with Invalid params. */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

/** Methods the stateless revision removed; its requests for them are unknown methods. */
const REMOVED = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/** Results a client may cache, with how long and for whom. */
const CACHING: Readonly<Record<string, { ttlMs: number; cacheScope: "public" | "private" }>> = {
  // Fixed for the life of the process: the flags it was started with decide them.
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
  "tools/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "prompts/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 3_600_000, cacheScope: "public" },
  // The repository's own data, which changes with every commit or twig command.
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/** What `server/discover` answers. */
export interface Discovery {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions: string;
}

/**
 * Serves MCP 2026-07-28 beside the `initialize`-based revisions on one SDK `Server`, as a Transport
 * between it and stdio (the SDK's public contract). A request whose `_meta` names a protocol
 * version or client capabilities, or a `server/discover`, is a stateless one: its `_meta` is
 * checked (`-32602` when a required field is missing, `-32022` for a version not served),
 * `server/discover` is answered here, and its result gains what the revision requires
 * (`resultType`, `serverInfo` in `_meta`, caching hints). Anything else reaches the `Server` as is,
 * so clients of earlier revisions see no change.
 */
export class StatelessRequests implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #inner: Transport;
  readonly #discovery: Discovery;
  /** Stateless requests in flight, by id, with their method. */
  readonly #inFlight = new Map<RequestId, string>();

  constructor(inner: Transport, discovery: Discovery) {
    this.#inner = inner;
    this.#discovery = discovery;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => this.#receive(message, extra);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => this.onclose?.();
    await this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("id" in message) || "method" in message || message.id === undefined) {
      return this.#inner.send(message, options);
    }
    const method = this.#inFlight.get(message.id);
    if (method === undefined) return this.#inner.send(message, options);
    this.#inFlight.delete(message.id);
    if ("result" in message) return this.#inner.send({ ...message, result: this.#complete(method, message.result) });
    if (message.error.code !== LEGACY_RESOURCE_NOT_FOUND) return this.#inner.send(message, options);
    return this.#inner.send({ ...message, error: { ...message.error, code: ErrorCode.InvalidParams } }, options);
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (!("method" in message) || !("id" in message)) {
      // A cancelled request is never answered: it is no longer in flight.
      if ("method" in message && message.method === "notifications/cancelled") {
        const cancelled = message.params?.requestId;
        if (typeof cancelled === "string" || typeof cancelled === "number") this.#inFlight.delete(cancelled);
      }
      this.onmessage?.(message, extra);
      return;
    }
    const meta: Record<string, unknown> | undefined = message.params?._meta;
    if (
      message.method !== "server/discover" &&
      meta?.[VERSION_KEY] === undefined &&
      meta?.[CAPABILITIES_KEY] === undefined
    ) {
      this.onmessage?.(message, extra);
      return;
    }
    const version = meta?.[VERSION_KEY];
    const capabilities = meta?.[CAPABILITIES_KEY];
    const missing = typeof version !== "string" ? VERSION_KEY : !isObject(capabilities) ? CAPABILITIES_KEY : null;
    if (missing !== null) {
      this.#refuse(message.id, ErrorCode.InvalidParams, `Invalid params: _meta needs "${missing}"`);
    } else if (version !== STATELESS_PROTOCOL_VERSION) {
      this.#refuse(message.id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
        supported: [STATELESS_PROTOCOL_VERSION],
        requested: version,
      });
    } else if (message.method === "server/discover") {
      const { serverInfo: _, ...discovery } = this.#discovery;
      const result = { supportedVersions: [STATELESS_PROTOCOL_VERSION], ...discovery };
      this.#reply({ jsonrpc: "2.0", id: message.id, result: this.#complete(message.method, result) });
    } else if (REMOVED.has(message.method)) {
      this.#refuse(message.id, ErrorCode.MethodNotFound, "Method not found");
    } else {
      this.#inFlight.set(message.id, message.method);
      this.onmessage?.(message, extra);
    }
  }

  /** A result as the stateless revision has it: complete, naming the server, cacheable where it can be. */
  #complete(method: string, result: Record<string, unknown>): Record<string, unknown> {
    const meta = isObject(result._meta) ? result._meta : {};
    return {
      ...result,
      resultType: "complete",
      ...CACHING[method],
      _meta: { ...meta, [SERVER_INFO_KEY]: this.#discovery.serverInfo },
    };
  }

  #refuse(id: RequestId, code: number, message: string, data?: unknown): void {
    this.#reply({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  #reply(message: JSONRPCMessage): void {
    this.#inner
      .send(message)
      .catch((error) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
