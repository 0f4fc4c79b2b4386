import { statSync } from "node:fs";
import { delimiter, dirname, posix, resolve, win32 } from "node:path";
import type { ConfigScope } from "./args.ts";

export type LaunchCommand = { command: string; args: string[] };

/** Defined by `bun build.ts --published`: the build of a package that is on npm. */
declare const TWIG_MCP_PUBLISHED: boolean | undefined;

/** What the launch command depends on, so that tests can describe any machine. */
export type Host = ReturnType<typeof currentHost>;

function currentHost() {
  return {
    /** The resolved file when compiled: a link on PATH (Homebrew's bin/) is already followed here. */
    execPath: process.execPath,
    /** What the user typed to run it, a bare name or a path, links not followed. */
    ran: process.argv0,
    /** In Bun's virtual file system when compiled, the entry script when run from source. */
    main: Bun.main,
    platform: process.platform,
    /** Whether `bunx twig-mcp` and `npx -y twig-mcp` can fetch this program: only a release for npm says so. */
    published: typeof TWIG_MCP_PUBLISHED === "boolean" && TWIG_MCP_PUBLISHED,
    which: (program: string): string | null => Bun.which(program),
    /** Device and inode, links followed. */
    identity: (path: string): string | null => {
      const info = statSync(path, { throwIfNoEntry: false });
      return info === undefined ? null : `${info.dev}:${info.ino}`;
    },
  };
}

/**
 * How a client should start this twig-mcp, by a path that outlives this run: not a vanishing bunx/npx
 * cache path, a Cellar path naming the version, nor the platform binary inside an npm install.
 */
export function selfCommand(host: Host): LaunchCommand {
  const { execPath, main } = host;
  const compiled = main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);
  const path = host.platform === "win32" ? win32 : posix;
  if (!compiled) {
    // A client starts the server in the repository it serves, which may be a hostile clone: Bun
    // would load that directory's bunfig.toml (a preload runs code) and .env. Ours, and none.
    const bunfig = path.join(path.dirname(path.dirname(main)), "bunfig.toml");
    return { command: execPath, args: [`--config=${bunfig}`, "--no-env-file", main] };
  }
  const parts = execPath.split(/[\\/]/);
  // The link the user ran outlives an upgrade; the versioned file behind it does not.
  const ran = /[\\/]/.test(host.ran) ? path.resolve(host.ran) : host.which(host.ran);
  if (ran !== null && ran !== execPath && sameFile(host, ran, execPath)) return { command: ran, args: [] };
  if (host.published && parts.includes("_npx")) return { command: "npx", args: ["-y", "twig-mcp"] };
  if (host.published && parts.some((part) => part.startsWith("bunx-"))) return { command: "bunx", args: ["twig-mcp"] };
  const cellar = parts.lastIndexOf("Cellar");
  if (cellar > 0 && parts[cellar + 1] === "twig-mcp") {
    const link = path.join(parts.slice(0, cellar).join(path.sep) || path.sep, "bin", path.basename(execPath));
    if (host.identity(link) !== null) return { command: link, args: [] };
  }
  const modules = parts.indexOf("node_modules");
  const launcher = host.which("twig-mcp");
  if (modules > 0 && launcher !== null) {
    // npm links the package's `bin` onto PATH (a symlink; a .cmd shim beside node_modules on Windows).
    const root = parts.slice(0, modules + 1).join(path.sep);
    const script = host.identity(path.join(root, "twig-mcp", "bin", "twig-mcp.js"));
    if (
      (script !== null && host.identity(launcher) === script) ||
      path.join(path.dirname(launcher), "node_modules") === root
    ) {
      return { command: launcher, args: [] };
    }
  }
  return { command: execPath, args: [] };
}

/**
 * For files others run (a project file, a typed command): `twig-mcp` when PATH's is this program,
 * else the package runner when published, else this program's path.
 */
export function portableCommand(self: LaunchCommand, host: Host): LaunchCommand {
  if (self.command === "bunx" || self.command === "npx") return self;
  const onPath = host.which("twig-mcp");
  // From source the entry script is the last word; a binary is the command itself.
  const file = self.args.at(-1) ?? self.command;
  if (onPath !== null && sameFile(host, onPath, file)) return { command: "twig-mcp", args: [] };
  if (!host.published) return self;
  return host.which("bun") !== null
    ? { command: "bunx", args: ["twig-mcp"] }
    : { command: "npx", args: ["-y", "twig-mcp"] };
}

function sameFile(host: Host, a: string, b: string): boolean {
  const identity = host.identity(a);
  return identity !== null && identity === host.identity(b);
}

/**
 * The `twig-mcp` that PATH finds first, and whether it is this program (a link or the npm launcher
 * counts): upstream twig ships a different program under the same name. `missingDir`: this binary's
 * directory when PATH does not hold it (a fresh account's ~/.local/bin), else `null`.
 */
export function twigMcpOnPath(host = currentHost()) {
  const self = selfCommand(host);
  const onPath = host.which("twig-mcp");
  const dir = self.args.length === 0 ? dirname(self.command) : null;
  const dirs = (process.env.PATH ?? "").split(delimiter).map((entry) => resolve(entry));
  return {
    onPath,
    self: describeLaunch(self),
    same: onPath !== null && runsThisProgram(onPath, [], host),
    missingDir: dir !== null && !dirs.includes(dir) ? dir : null,
  };
}

/** Whether a client's `command args` starts this program: the command itself, or the script after a runtime. */
export function runsThisProgram(command: string, args: readonly unknown[], host = currentHost()): boolean {
  const self = selfCommand(host);
  // From source, the script names this program; the runtime before it runs any script.
  const files = self.args.length > 0 ? self.args.slice(-1) : [self.command, host.execPath];
  const script = args.at(-1);
  const candidates = [command, ...(typeof script === "string" && /[\\/]/.test(script) ? [script] : [])];
  return candidates.some((file) => files.some((f) => sameFile(host, file, f)));
}

/** What the client runs, before the server's own args; `note` says when it is not this executable's path. */
export function launchCommand(
  commandPath: string | null,
  scope: ConfigScope,
): { launch: LaunchCommand; note: string | null } {
  if (commandPath !== null) {
    // A bare name (`twig-mcp`) is looked up on the client's PATH; anything with a slash is a path.
    const path = /[\\/]/.test(commandPath) ? resolve(commandPath) : commandPath;
    return { launch: { command: path, args: [] }, note: null };
  }
  const host = currentHost();
  const self = selfCommand(host);
  const portable = scope === "project" ? portableCommand(self, host) : self;
  if (portable.command !== self.command) {
    const note = `Note: project files are shared through git, so the entry runs '${describeLaunch(portable)}' rather than this executable's path (${describeLaunch(self)}); pass --command PATH to register a path instead.\n`;
    return { launch: portable, note };
  }
  // A package runner (bunx, npx) works wherever the repository is cloned; a path, only here.
  const herePath = scope === "project" && self.command !== "bunx" && self.command !== "npx";
  const note = `Note: the entry runs this executable's path, which is only on this machine: put twig-mcp on PATH (or pass --command twig-mcp) for one that works wherever the repository is cloned.\n`;
  return { launch: self, note: herePath ? note : null };
}

export function describeLaunch(launch: LaunchCommand): string {
  return [launch.command, ...launch.args].join(" ");
}

/** `args` after the command that runs this program, as a shell needs them typed (`twig-mcp`, or a path). */
export function typedCommand(args: readonly string[], host = currentHost()): string {
  const { command, args: before } = portableCommand(selfCommand(host), host);
  return [command, ...before, ...args].map((word) => shellQuote(word, host.platform)).join(" ");
}

/** A word as a shell would need it typed: POSIX single quotes, or double quotes on Windows. */
export function shellQuote(word: string, platform: NodeJS.Platform): string {
  if (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(word)) return word;
  if (platform === "win32") return `"${word.replace(/"/g, '\\"')}"`;
  return `'${word.replace(/'/g, "'\\''")}'`;
}
