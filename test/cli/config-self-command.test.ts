import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Host,
  portableCommand,
  runsThisProgram,
  selfCommand,
  typedCommand,
} from "../../src/cli/config-self-command.ts";

/**
 * A machine described by its files: `files` maps each path to the file it leads to (links and
 * hard links name the same file), `path` what PATH finds.
 */
function host(facts: {
  execPath: string;
  ran?: string;
  main?: string;
  platform?: NodeJS.Platform;
  published?: boolean;
  path?: Record<string, string>;
  files?: Record<string, string>;
}): Host {
  const files = facts.files ?? {};
  return {
    execPath: facts.execPath,
    ran: facts.ran ?? facts.execPath,
    main: facts.main ?? "/$bunfs/root/twig-mcp",
    platform: facts.platform ?? "linux",
    published: facts.published ?? false,
    which: (program) => facts.path?.[program] ?? null,
    identity: (path) => files[path] ?? null,
  };
}

describe("selfCommand: what a client should run", () => {
  test("a downloaded binary: its own path", () => {
    expect(selfCommand(host({ execPath: "/home/alice/bin/twig-mcp" }))).toEqual({
      command: "/home/alice/bin/twig-mcp",
      args: [],
    });
  });

  test("Homebrew: the stable bin link, not the versioned Cellar path", () => {
    const execPath = "/opt/homebrew/Cellar/twig-mcp/0.1.0/bin/twig-mcp";
    const link = "/opt/homebrew/bin/twig-mcp";
    expect(selfCommand(host({ execPath, platform: "darwin", files: { [link]: "f1" } }))).toEqual({
      command: link,
      args: [],
    });
    expect(selfCommand(host({ execPath }))).toEqual({ command: execPath, args: [] });
  });

  test("a link the user ran (by path, or by name on PATH) is registered, not the versioned file behind it", () => {
    const execPath = "/opt/twig-mcp-0.1.0/bin/twig-mcp";
    const link = "/home/alice/.local/bin/twig-mcp";
    const files = { [link]: "f1", [execPath]: "f1", "/usr/bin/twig-mcp": "f2" };
    expect(selfCommand(host({ execPath, ran: link, files }))).toEqual({ command: link, args: [] });
    expect(selfCommand(host({ execPath, ran: "twig-mcp", path: { "twig-mcp": link }, files }))).toEqual({
      command: link,
      args: [],
    });
    // A name on PATH that is some other file is not what ran.
    const other = host({ execPath, ran: "twig-mcp", path: { "twig-mcp": "/usr/bin/twig-mcp" }, files });
    expect(selfCommand(other)).toEqual({ command: execPath, args: [] });
    // Linuxbrew's Cellar, run through the link on PATH.
    const cellar = "/home/linuxbrew/.linuxbrew/Cellar/twig-mcp/0.2.0/bin/twig-mcp";
    const brew = "/home/linuxbrew/.linuxbrew/bin/twig-mcp";
    expect(
      selfCommand(
        host({ execPath: cellar, ran: "twig-mcp", path: { "twig-mcp": brew }, files: { [brew]: "b", [cellar]: "b" } }),
      ),
    ).toEqual({ command: brew, args: [] });
  });

  test("npx and bunx caches: the package runner only when the package is published", () => {
    const npx = "/home/alice/.npm/_npx/1a2b/node_modules/twig-mcp-linux-x64/bin/twig-mcp";
    const bunx = "/tmp/bunx-1000-twig-mcp@latest/node_modules/twig-mcp-linux-x64/bin/twig-mcp";
    expect(selfCommand(host({ execPath: npx, published: true }))).toEqual({ command: "npx", args: ["-y", "twig-mcp"] });
    expect(selfCommand(host({ execPath: bunx, published: true }))).toEqual({ command: "bunx", args: ["twig-mcp"] });
    expect(selfCommand(host({ execPath: npx }))).toEqual({ command: npx, args: [] });
  });

  test("an npm global install: the launcher npm put on PATH, not the platform binary", () => {
    const execPath = "/usr/local/lib/node_modules/twig-mcp/node_modules/twig-mcp-linux-x64/bin/twig-mcp";
    const shim = "/usr/local/bin/twig-mcp";
    const files = { [shim]: "launcher", "/usr/local/lib/node_modules/twig-mcp/bin/twig-mcp.js": "launcher" };
    expect(selfCommand(host({ execPath, path: { "twig-mcp": shim }, files }))).toEqual({ command: shim, args: [] });
    // Some other twig-mcp on PATH is not this install's launcher.
    const other = { [shim]: "elsewhere", "/usr/local/lib/node_modules/twig-mcp/bin/twig-mcp.js": "launcher" };
    expect(selfCommand(host({ execPath, path: { "twig-mcp": shim }, files: other }))).toEqual({
      command: execPath,
      args: [],
    });
    // Windows: npm writes twig-mcp.cmd beside its node_modules.
    const win =
      "C:\\Users\\a\\AppData\\Roaming\\npm\\node_modules\\twig-mcp\\node_modules\\twig-mcp-windows-x64\\bin\\twig-mcp.exe";
    const cmd = "C:\\Users\\a\\AppData\\Roaming\\npm\\twig-mcp.cmd";
    expect(
      selfCommand(
        host({ execPath: win, platform: "win32", main: "B:\\~BUN\\root\\twig-mcp.exe", path: { "twig-mcp": cmd } }),
      ),
    ).toEqual({ command: cmd, args: [] });
  });

  test("from source: Bun with the project's own bunfig and no .env (a clone's would run code), and the entry script", () => {
    expect(selfCommand(host({ main: "/src/twig-mcp/src/main.ts", execPath: "/usr/bin/bun" }))).toEqual({
      command: "/usr/bin/bun",
      args: ["--config=/src/twig-mcp/bunfig.toml", "--no-env-file", "/src/twig-mcp/src/main.ts"],
    });
  });

  test("Windows binaries are recognised by Bun's virtual drive", () => {
    const facts = {
      platform: "win32" as const,
      main: "B:\\~BUN\\root\\twig-mcp.exe",
      execPath: "C:\\tools\\twig-mcp.exe",
    };
    expect(selfCommand(host(facts))).toEqual({ command: "C:\\tools\\twig-mcp.exe", args: [] });
  });
});

describe("portableCommand: what a shared file or a typed command runs", () => {
  const self = { command: "/home/a/.local/bin/twig-mcp", args: [] };
  const files = { "/home/a/.local/bin/twig-mcp": "f1", "/usr/bin/twig-mcp": "f2", "/home/a/bin/twig-mcp": "f1" };

  test("twig-mcp on PATH that is this very file (by a link or another name): the bare name", () => {
    const onPath = host({ execPath: self.command, files, path: { "twig-mcp": "/home/a/bin/twig-mcp" } });
    expect(portableCommand(self, onPath)).toEqual({ command: "twig-mcp", args: [] });
  });

  test("another twig-mcp on PATH, or none: this file's absolute path, never bunx or npx", () => {
    const paths: Record<string, string>[] = [
      { "twig-mcp": "/usr/bin/twig-mcp", bun: "/usr/bin/bun" },
      { bun: "/usr/bin/bun" },
      {},
    ];
    for (const path of paths) {
      expect(portableCommand(self, host({ execPath: self.command, files, path }))).toEqual(self);
    }
  });

  test("a published package: the package runner when twig-mcp on PATH is not this file", () => {
    const bun = host({ execPath: self.command, files, published: true, path: { bun: "/usr/bin/bun" } });
    expect(portableCommand(self, bun)).toEqual({ command: "bunx", args: ["twig-mcp"] });
    expect(portableCommand(self, host({ execPath: self.command, files, published: true }))).toEqual({
      command: "npx",
      args: ["-y", "twig-mcp"],
    });
  });

  test("from source: the bare name when twig-mcp on PATH is the entry script (bun link)", () => {
    const source = {
      command: "/usr/bin/bun",
      args: ["--config=/src/twig-mcp/bunfig.toml", "--no-env-file", "/src/twig-mcp/src/main.ts"],
    };
    const linked = host({
      execPath: "/usr/bin/bun",
      main: "/src/twig-mcp/src/main.ts",
      files: { "/src/twig-mcp/src/main.ts": "m", "/home/a/.bun/bin/twig-mcp": "m" },
      path: { "twig-mcp": "/home/a/.bun/bin/twig-mcp" },
    });
    expect(portableCommand(source, linked)).toEqual({ command: "twig-mcp", args: [] });
    expect(typedCommand(["config", "cursor"], { ...linked, which: () => null })).toBe(
      "/usr/bin/bun --config=/src/twig-mcp/bunfig.toml --no-env-file /src/twig-mcp/src/main.ts config cursor",
    );
  });

  test("typedCommand quotes a path for the shell", () => {
    const odd = host({ execPath: "/opt/my tools/twig-mcp" });
    expect(typedCommand(["config", "claude-code"], odd)).toBe("'/opt/my tools/twig-mcp' config claude-code");
  });
});

describe("the command registered from source, run where a client runs it", () => {
  test("a clone's bunfig.toml preload and .env are not loaded", () => {
    const clone = mkdtempSync(join(tmpdir(), "twig-mcp-hostile-"));
    try {
      const marker = join(clone, "ran");
      writeFileSync(join(clone, "bunfig.toml"), 'preload = ["./evil.ts"]\n');
      writeFileSync(join(clone, "evil.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`);
      writeFileSync(join(clone, ".env"), "TWIG_MCP_DISABLE=github\n");
      const main = join(import.meta.dir, "..", "..", "src", "main.ts");
      const { command, args } = selfCommand(host({ execPath: process.execPath, main }));
      const env = { PATH: process.env.PATH ?? "", HOME: clone };
      const run = Bun.spawnSync([command, ...args, "tools"], { cwd: clone, env, stdout: "pipe", stderr: "pipe" });
      expect(run.exitCode).toBe(0);
      expect(existsSync(marker)).toBe(false);
      // The .env would have turned the GitHub tools off.
      expect(run.stdout.toString()).toContain("get_pr_status");
      // The same script run plainly in that directory does load both: the flags are what stops them.
      const plain = Bun.spawnSync([process.execPath, main, "tools"], {
        cwd: clone,
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(existsSync(marker)).toBe(true);
      expect(plain.stdout.toString()).not.toContain("get_pr_status");
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("runsThisProgram: whether a client's entry starts this twig-mcp", () => {
  const execPath = "/home/alice/.local/bin/twig-mcp";
  const files = { [execPath]: "f1", "/home/alice/bin/twig-mcp": "f1", "/opt/upstream/twig-mcp": "f2" };

  test("a compiled binary: its own path or a link to it, not another file of the same name", () => {
    expect(runsThisProgram(execPath, [], host({ execPath, files }))).toBe(true);
    expect(runsThisProgram("/home/alice/bin/twig-mcp", ["--repo", "/src"], host({ execPath, files }))).toBe(true);
    expect(runsThisProgram("/opt/upstream/twig-mcp", [], host({ execPath, files }))).toBe(false);
  });

  test("from source, the script after the runtime decides, not the runtime every Bun script shares", () => {
    const main = "/src/twig-mcp/src/main.ts";
    const source = host({ execPath: "/usr/bin/bun", main, files: { "/usr/bin/bun": "bun", [main]: "m" } });
    expect(runsThisProgram("/usr/bin/bun", ["--no-env-file", main], source)).toBe(true);
    expect(runsThisProgram("/usr/bin/bun", ["/elsewhere/server.ts"], source)).toBe(false);
  });
});
