/**
 * Builds the binary the end-to-end tests drive before any test starts. Built inside a test or a
 * hook, the build counted against that test's 5 s limit, and on a slow machine whichever file ran
 * first timed out; a preload has no limit. TWIG_MCP_BIN (a prebuilt binary) skips the build.
 */
import { binaryPath } from "./binary.ts";

await binaryPath();
