import { posix, win32 } from "node:path";

/** What an MCP client should run to start this server: a program and the arguments before ours. */
export interface LaunchCommand {
  command: string;
  args: string[];
}

export interface ProcessFacts {
  /** `process.execPath`: the compiled binary, or the Bun runtime when running from source. */
  execPath: string;
  /** `Bun.main`: the entry script; inside a compiled binary a path in Bun's virtual file system. */
  main: string;
  platform: NodeJS.Platform;
  exists: (path: string) => boolean;
}

/**
 * How a client should start the twig-mcp that is running now. `process.execPath` is the real file
 * (symlinks resolved), which is right for a downloaded binary but not everywhere:
 *
 * - inside bunx's or npx's download cache the path disappears when the cache is cleaned, so the
 *   client is told to run `bunx twig-mcp` / `npx -y twig-mcp` instead;
 * - in Homebrew's Cellar the path names the version and breaks on `brew upgrade`, so the
 *   stable `<prefix>/bin/twig-mcp` link is used;
 * - from a source checkout the command is Bun with the entry script.
 */
export function selfCommand(facts: ProcessFacts): LaunchCommand {
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

/**
 * What a project-scope file (shared through git, read on other machines) should run: `twig-mcp`
 * when it is on PATH, else the package runner this copy came from or one that is installed.
 * An absolute path would name this machine's layout.
 */
export function portableCommand(self: LaunchCommand, onPath: (program: string) => boolean): LaunchCommand {
  if (onPath("twig-mcp")) return { command: "twig-mcp", args: [] };
  if (self.command === "bunx" || self.command === "npx") return self;
  return onPath("bun") ? { command: "bunx", args: ["twig-mcp"] } : { command: "npx", args: ["-y", "twig-mcp"] };
}
