import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

/**
 * The SDK's `Server` builds an Ajv instance (for elicitation answers) unless handed a validator:
 * 2–4 ms of every start-up. twig-mcp elicits nothing, so this builds it on first use only.
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
