import { escapeInvisibles, plainText } from "../core/plain-text.ts";

/**
 * Writes to stdout or stderr and resolves once the text is handed to the OS, so a
 * `process.exit` right after cannot cut off a long answer going into a pipe. The text is made
 * plain first (`src/core/plain-text.ts`): what a repository, a PR or a Jira issue holds may carry
 * terminal escapes (OSC 52 writes the clipboard) or bidi overrides, and none reach the terminal.
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
  return new Promise((done) => {
    if (text === "") {
      done();
      return;
    }
    stream.write(text, () => done());
  });
}
