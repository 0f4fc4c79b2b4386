/**
 * The most bytes the whole `tools/list` reply (JSON-RPC envelope included) may take: it sits in the
 * model's context every turn. The e2e tests, the bench target and the docs' stated bound use it.
 */
export const TOOLS_LIST_MAX_BYTES = Math.floor(12.8 * 1024);
