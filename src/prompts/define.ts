import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { plainText } from "../core/plain-text.ts";
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

/** Declares a prompt; its text, a user-role message, loses control and invisible characters here. */
export function definePrompt<A extends PromptArgsSchema>(prompt: PromptDefinition<A>): PromptDefinition<A> {
  return {
    ...prompt,
    async render(args, ctx, invoke) {
      return plainText(await prompt.render(args, ctx, invoke));
    },
  };
}

/** A prompt as `prompts/list` shows it. */
export function publishPrompt(prompt: PromptDefinition) {
  const args = Object.entries(prompt.args.entries).map(([name, schema]) => {
    const optional = schema.type === "optional";
    const description = v.getDescription(
      optional ? (schema as v.OptionalSchema<v.GenericSchema, undefined>).wrapped : schema,
    );
    return description === undefined ? { name, required: !optional } : { name, description, required: !optional };
  });
  return {
    name: prompt.name,
    ...(prompt.title === undefined ? {} : { title: prompt.title }),
    description: prompt.description,
    arguments: args,
  };
}

/** Checks `prompts/get` arguments; `""` means "not given" (clients send it for a blank field). */
export function parsePromptArgs<A extends PromptArgsSchema>(
  prompt: PromptDefinition<A>,
  raw: Record<string, string>,
): { ok: true; value: v.InferOutput<A> } | { ok: false; problem: string } {
  const given = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== ""));
  const parsed = v.safeParse(prompt.args, given);
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0];
  const path = v.getDotPath(issue);
  return { ok: false, problem: path === null ? issue.message : `${path}: ${issue.message}` };
}
