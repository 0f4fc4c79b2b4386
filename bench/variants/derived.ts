/** Start-up experiment entry point: twig-mcp deriving tools/list at start-up (not at build time). */
import "./derived-tools.ts";
import "../../src/main.ts";
