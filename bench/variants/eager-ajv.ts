/**
 * Start-up experiment entry point: twig-mcp as it was before its server was given a validator that
 * builds Ajv on first use, i.e. with the Ajv validator built at start-up, as the SDK's `Server`
 * builds it when given none. Shows what src/mcp/lazy-schema-validator.ts buys.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import "../../src/main.ts";

(globalThis as Record<string, unknown>).__twigMcpEagerAjv = new AjvJsonSchemaValidator();
