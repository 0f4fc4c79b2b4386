import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

/**
 * The SDK's `Server` checks what a client answers to an elicitation with Ajv, and builds that Ajv
 * instance (every format, every keyword) in its constructor unless it is handed a validator: 2–4 ms
 * of every start-up. twig-mcp elicits nothing, so this one builds the SDK's own Ajv validator the
 * first time a schema is asked for, and never otherwise.
 */
export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  #ajv: AjvJsonSchemaValidator | undefined;

  /** Whether the Ajv validator has been built. */
  get built(): boolean {
    return this.#ajv !== undefined;
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (this.#ajv === undefined) {
      // Loaded here, not imported: a build that drops the SDK's own import of Ajv (the bench's
      // defer-ajv variant) then loads it on first use only. getValidator cannot wait, so require.
      const { AjvJsonSchemaValidator } =
        require("@modelcontextprotocol/sdk/validation/ajv") as typeof import("@modelcontextprotocol/sdk/validation/ajv");
      this.#ajv = new AjvJsonSchemaValidator();
    }
    return this.#ajv.getValidator<T>(schema);
  }
}
