/**
 * Writes to stdout or stderr and resolves once the text is handed to the OS, so a
 * `process.exit` right after cannot cut off a long answer going into a pipe.
 */
export function writeOut(text: string): Promise<void> {
  return write(process.stdout, text);
}

export function writeErr(text: string): Promise<void> {
  return write(process.stderr, text);
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
