import { escapeInvisibles, plainText } from "../core/plain-text.ts";

/**
 * Resolves once the text is handed to the OS, so an exit right after cannot cut off a piped answer.
 * Made plain first: a repository, PR or issue may carry terminal escapes or bidi overrides.
 */
export function writeOut(text: string): Promise<void> {
  return write(process.stdout, plainText(text));
}

export function writeErr(text: string): Promise<void> {
  return write(process.stderr, plainText(text));
}

/** JSON for `--json`: the same value, with the characters a terminal would act on as `\uXXXX`. */
export function writeJson(json: string): Promise<void> {
  return write(process.stdout, escapeInvisibles(json));
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return text === "" ? Promise.resolve() : new Promise((done) => stream.write(text, () => done()));
}
