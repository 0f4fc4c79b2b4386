/**
 * Floor (b): a minimal `@modelcontextprotocol/sdk` low-level `Server` with one trivial tool over
 * the SDK's stdio transport: the unavoidable cost of the SDK twig-mcp is built on.
 */
import { serveSdkFloor } from "./sdk-server.ts";

serveSdkFloor();
