/** Start-up experiment entry point: precomputed tools/list and the JIT policy reset once interactive. */
import "./jit-reset-hook.ts";
import "./precomputed-tools.ts";
import "../../src/main.ts";
