/** Start-up experiment entry point: twig-mcp with the JIT policy reset once interactive. */
import "./jit-reset-hook.ts";
import "../../src/main.ts";
