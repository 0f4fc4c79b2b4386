#!/usr/bin/env bun
import pkg from "../package.json" with { type: "json" };
import { type CommonOptions, parseArgs, withEnvironment } from "./cli/args.ts";
import { helpText } from "./cli/help.ts";
import { serve } from "./cli/serve.ts";

/** Serving is loaded eagerly; the other commands are imported only when asked for, so start-up stays lean. */
async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(`error: ${parsed.error.message}\n`);
    return 2;
  }
  const command = parsed.value;
  switch (command.command) {
    case "help":
      process.stdout.write(helpText(command.topic));
      return 0;
    case "version":
      process.stdout.write(`twig-mcp ${pkg.version}\n`);
      return 0;
    case "serve":
      return serve(...withEnvironment(command, process.env));
    case "tools":
      return (await import("./cli/tools.ts")).runTools(warnIgnored(command));
    case "call":
      return (await import("./cli/tools.ts")).runCall(warnIgnored(command));
    case "config":
      return (await import("./cli/config.ts")).runConfig(command);
    case "doctor":
      return (await import("./cli/doctor.ts")).runDoctor(...withEnvironment(command, process.env));
    case "demo":
      return (await import("./cli/demo.ts")).runDemo(command);
  }
}

/** Commands see the environment the server would (TWIG_MCP_REPO, TWIG_MCP_DISABLE), to reproduce what a client gets. */
function warnIgnored<T extends CommonOptions>(command: T): T {
  const [options, ignored] = withEnvironment(command, process.env);
  for (const note of ignored) process.stderr.write(`warning: ${note}\n`);
  return options;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`twig-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
