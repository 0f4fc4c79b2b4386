/**
 * Discovery is a handful of `stat`s and two small reads, cheap enough to run on every call, which
 * is also what makes a moved or re-initialised repository visible at once. Kept under its old
 * name for the callers that import it from here.
 */
export { discoverRepository as discoverRepositoryCached } from "./discover.ts";
