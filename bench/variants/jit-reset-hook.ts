/**
 * For the start-up experiment only: with an executable built with `compile.jitPolicy` above 1,
 * puts JavaScriptCore's JIT policy back to normal once the server has written its second message
 * (the `tools/list` reply after `initialize`), i.e. once it is interactive, as Bun's documentation
 * advises. Imported before src/main.ts so it is in place before the server starts.
 */
const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
let written = 0;

process.stdout.write = ((...args: unknown[]) => {
  written++;
  if (written === 2) setImmediate(() => Bun.unsafe.setJITPolicy(1));
  return write(...args);
}) as typeof process.stdout.write;
