#!/usr/bin/env bun
import pkg from "../package.json" with { type: "json" };
import { HELP_TEXT, parseArgs } from "./cli/args.ts";
import { serve } from "./cli/serve.ts";

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(`error: ${parsed.error.message}\n`);
    return 2;
  }
  const command = parsed.value;
  if (command.command === "help") {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (command.command === "version") {
    process.stdout.write(`twig-mcp ${pkg.version}\n`);
    return 0;
  }
  return serve(command);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`twig-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
