import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type Implementation,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { inline } from "../core/plain-text.ts";

/** The stateless revision: no `initialize`; every request carries its version and capabilities in `_meta`. */
const STATELESS_PROTOCOL_VERSION = "2026-07-28";

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Resource not found until 2025-11-25; the stateless revision answers it with Invalid params. */
export const RESOURCE_NOT_FOUND = -32002;

/** Methods the stateless revision removed; its requests for them are unknown methods. */
const REMOVED = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/** Cache hints: lists are fixed by the flags for the process's life; repository data changes any time. */
const FIXED = { ttlMs: 3_600_000, cacheScope: "public" } as const;
const LIVE = { ttlMs: 0, cacheScope: "private" } as const;
const CACHING: Readonly<Record<string, typeof FIXED | typeof LIVE>> = {
  ...Object.fromEntries(
    ["server/discover", "tools/list", "prompts/list", "resources/templates/list"].map((m) => [m, FIXED]),
  ),
  "resources/list": LIVE,
  "resources/read": LIVE,
};

/** A request of the stateless revision for a method it removed: answered `-32601` here, whatever its params. */
export function isRemovedStateless(message: JSONRPCMessage): boolean {
  if (!("method" in message && "id" in message) || !REMOVED.has(message.method)) return false;
  const meta: Record<string, unknown> = message.params?._meta ?? {};
  return meta[VERSION_KEY] !== undefined || meta[CAPABILITIES_KEY] !== undefined;
}

/**
 * Serves MCP 2026-07-28 beside the `initialize`-based revisions, as a Transport in front of the SDK's:
 * a `server/discover`, or a request whose `_meta` names a version or capabilities, is stateless.
 */
export class StatelessRequests implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #inFlight = new Map<RequestId, string>();

  constructor(
    readonly inner: Transport,
    readonly discovery: { serverInfo: Implementation; capabilities: ServerCapabilities; instructions: string },
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.#receive(message, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("id" in message) || "method" in message || message.id === undefined) return this.inner.send(message, options);
    const method = this.#inFlight.get(message.id);
    if (method === undefined) return this.inner.send(message, options);
    this.#inFlight.delete(message.id);
    if ("result" in message)
      return this.inner.send({ ...message, result: this.#complete(method, message.result) }, options);
    const code = message.error.code === RESOURCE_NOT_FOUND ? ErrorCode.InvalidParams : message.error.code;
    return this.inner.send({ ...message, error: { ...message.error, code } }, options);
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo) {
    const pass = () => this.onmessage?.(message, extra);
    if (!("method" in message)) return pass();
    if (!("id" in message)) {
      // A cancelled request is never answered: it is no longer in flight.
      const cancelled = message.method === "notifications/cancelled" ? message.params?.requestId : undefined;
      if (typeof cancelled === "string" || typeof cancelled === "number") this.#inFlight.delete(cancelled);
      return pass();
    }
    const meta: Record<string, unknown> = message.params?._meta ?? {};
    const { [VERSION_KEY]: version, [CAPABILITIES_KEY]: capabilities } = meta;
    if (message.method !== "server/discover" && version === undefined && capabilities === undefined) return pass();
    const missing = typeof version !== "string" ? VERSION_KEY : !isObject(capabilities) ? CAPABILITIES_KEY : null;
    const reply = (answer: { result: Record<string, unknown> } | { error: JSONRPCErrorResponse["error"] }) =>
      this.inner
        .send({ jsonrpc: "2.0", id: message.id, ...answer } as JSONRPCMessage)
        .catch((error) => this.onerror?.(error));
    if (missing !== null) {
      reply({ error: { code: ErrorCode.InvalidParams, message: `Invalid params: _meta needs "${missing}"` } });
    } else if (version !== STATELESS_PROTOCOL_VERSION) {
      // The client's value, clipped: echoed whole, an 8 MB version would be an 8 MB answer.
      const data = { supported: [STATELESS_PROTOCOL_VERSION], requested: inline(String(version), 64) };
      reply({ error: { code: UNSUPPORTED_PROTOCOL_VERSION, message: "Unsupported protocol version", data } });
    } else if (message.method === "server/discover") {
      const { serverInfo: _, ...discovery } = this.discovery;
      reply({
        result: this.#complete(message.method, { supportedVersions: [STATELESS_PROTOCOL_VERSION], ...discovery }),
      });
    } else if (REMOVED.has(message.method)) {
      reply({ error: { code: ErrorCode.MethodNotFound, message: "Method not found" } });
    } else {
      this.#inFlight.set(message.id, message.method);
      pass();
    }
  }

  /** A result as the stateless revision has it: complete, naming the server, cacheable where it can be. */
  #complete(method: string, result: Record<string, unknown>): Record<string, unknown> {
    const meta = isObject(result._meta) ? result._meta : {};
    return {
      ...result,
      resultType: "complete",
      ...CACHING[method],
      _meta: { ...meta, [SERVER_INFO_KEY]: this.discovery.serverInfo },
    };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
