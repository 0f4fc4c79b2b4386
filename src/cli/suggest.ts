// The wire layer suggests too, so the helper lives in core; the CLI keeps importing it from here.
export { closest, editDistance } from "../core/suggest.ts";
