import * as v from "valibot";
import type { Context } from "../core/context.ts";
import type { ToolInvoker } from "../tools/define.ts";

/** A prompt's arguments: MCP sends them as strings, so each entry's schema starts from one. */
type PromptArgsSchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/** One prompt: what `prompts/list` publishes (arguments from the schema) and the text it renders. */
export interface PromptDefinition<A extends PromptArgsSchema = PromptArgsSchema> {
  name: string;
  title?: string;
  description: string;
  args: A;
  // Method syntax on purpose: it lets a PromptDefinition<A> stand in a list of PromptDefinition.
  render(args: v.InferOutput<A>, ctx: Context, invoke: ToolInvoker): Promise<string>;
}

/** Declares a prompt, typing `render`'s arguments by its schema. */
export const definePrompt = <A extends PromptArgsSchema>(prompt: PromptDefinition<A>): PromptDefinition<A> => prompt;

/** A prompt as `prompts/list` shows it: each argument's description is its schema's. */
export function publishPrompt({ name, title, description, args }: PromptDefinition) {
  const published = Object.entries(args.entries).map(([name, schema]) => {
    const required = schema.type !== "optional";
    const about = v.getDescription(required ? schema : (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped);
    return about === undefined ? { name, required } : { name, description: about, required };
  });
  return { name, ...(title === undefined ? {} : { title }), description, arguments: published };
}
