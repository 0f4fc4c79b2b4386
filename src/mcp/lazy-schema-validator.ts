import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
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
    this.#ajv ??= new AjvJsonSchemaValidator();
    return this.#ajv.getValidator<T>(schema);
  }
}
