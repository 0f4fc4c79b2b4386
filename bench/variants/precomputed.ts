/** Start-up experiment entry point: twig-mcp with tools/list precomputed at build time. */
import "./precomputed-tools.ts";
import "../../src/main.ts";
