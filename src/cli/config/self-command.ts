import { posix, win32 } from "node:path";

/** What an MCP client should run to start this server: a program and the arguments before ours. */
export interface LaunchCommand {
  command: string;
  args: string[];
}

/**
 * How a client should start the twig-mcp running now (`main` is `Bun.main`, in Bun's virtual file
 * system when compiled): not a bunx/npx cache path, which vanishes, nor a Homebrew Cellar path,
 * which names the version; from source, Bun with the entry script.
 */
export function selfCommand(facts: {
  execPath: string;
  main: string;
  platform: NodeJS.Platform;
  exists: (path: string) => boolean;
}): LaunchCommand {
  const { execPath, main } = facts;
  const compiled = main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);
  if (!compiled) return { command: execPath, args: [main] };
  const path = facts.platform === "win32" ? win32 : posix;
  const parts = execPath.split(/[\\/]/);
  if (parts.includes("_npx")) return { command: "npx", args: ["-y", "twig-mcp"] };
  if (parts.some((part) => part.startsWith("bunx-"))) return { command: "bunx", args: ["twig-mcp"] };
  const cellar = parts.lastIndexOf("Cellar");
  if (cellar > 0 && parts[cellar + 1] === "twig-mcp") {
    const link = path.join(parts.slice(0, cellar).join(path.sep) || path.sep, "bin", path.basename(execPath));
    if (facts.exists(link)) return { command: link, args: [] };
  }
  return { command: execPath, args: [] };
}

/** What a project file (shared through git) runs: `twig-mcp` from PATH, else a package runner. */
export function portableCommand(self: LaunchCommand, onPath: (program: string) => boolean): LaunchCommand {
  if (onPath("twig-mcp")) return { command: "twig-mcp", args: [] };
  if (self.command === "bunx" || self.command === "npx") return self;
  return onPath("bun") ? { command: "bunx", args: ["twig-mcp"] } : { command: "npx", args: ["-y", "twig-mcp"] };
}
