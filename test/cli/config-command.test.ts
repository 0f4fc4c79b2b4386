import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { mergeServerEntry } from "../../src/cli/config-merge.ts";
import { binaryPath } from "../support/binary.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", "configs", name), "utf8");

let home: HermeticHome;
let repo: GitRepo;
let binary: string;

beforeAll(async () => {
  home = makeHermeticHome();
  repo = makeRepo({ commit: true });
  binary = realpathSync(await binaryPath());
});
afterAll(() => {
  repo.cleanup();
  home.cleanup();
});

async function twigMcp(args: string[], cwd = repo.root) {
  const proc = Bun.spawn([binary, ...args], { cwd, env: home.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

function place(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const clients = [
  [
    "claude-desktop",
    () => join(home.home, ".config", "Claude", "claude_desktop_config.json"),
    "claude_desktop_config.json",
    "json",
    "mcpServers",
    {},
  ],
  ["cursor", () => join(home.home, ".cursor", "mcp.json"), "cursor-mcp.json", "json", "mcpServers", {}],
  [
    "vscode",
    () => join(home.home, ".config", "Code", "User", "mcp.json"),
    "vscode-mcp.json",
    "json",
    "servers",
    { type: "stdio" },
  ],
  // The fixture's entry has env (kept: the user's own file) and a timeout (dropped: not twig-mcp's).
  [
    "codex",
    () => join(home.home, ".codex", "config.toml"),
    "codex-config.toml",
    "toml",
    "mcp_servers",
    { env: { JIRA_HOST: "example.atlassian.net" } },
  ],
] as const;

describe("config <client> --write on the client's real file", () => {
  test.each(clients)(
    "%s: merged, backed up, and idempotent",
    async (client, pathOf, fixtureName, format, key, extra) => {
      const path = pathOf();
      const original = fixture(fixtureName);
      place(path, original);
      const first = await twigMcp(["config", client, "--write", "--repo", repo.root]);
      expect(first.stderr).toContain(`Updated ${path} (previous version: ${path}.bak)`);
      expect(first.code).toBe(0);
      const { env, ...rest } = extra as { env?: Record<string, string> };
      const expected = mergeServerEntry(format, original, key, "twig", {
        ...rest,
        command: binary,
        args: ["--repo", repo.root],
        ...(env === undefined ? {} : { env }),
      });
      expect(expected.ok).toBe(true);
      expect(readFileSync(path, "utf8")).toBe(expected.ok ? expected.value : "");
      expect(readFileSync(`${path}.bak`, "utf8")).toBe(original);

      const second = await twigMcp(["config", client, "--write", "--repo", repo.root]);
      expect(second.code).toBe(0);
      expect(second.stderr).toContain("nothing to change");
      expect(readFileSync(`${path}.bak`, "utf8")).toBe(original);
    },
  );

  test("a client without a config file gets a new one, readable only by the user", async () => {
    const fresh = join(home.home, "fresh-home");
    const result = await (async () => {
      const proc = Bun.spawn([binary, "config", "cursor", "--write"], {
        cwd: repo.root,
        env: { ...home.env, HOME: fresh },
        stdout: "pipe",
        stderr: "pipe",
      });
      return { code: await proc.exited, stderr: await new Response(proc.stderr).text() };
    })();
    expect(result.code).toBe(0);
    const created = join(fresh, ".cursor", "mcp.json");
    expect(result.stderr).toContain(`Created ${created} (new file)`);
    expect(JSON.parse(readFileSync(created, "utf8"))).toEqual({ mcpServers: { twig: { command: binary, args: [] } } });
    expect(statSync(created).mode & 0o777).toBe(0o600);
    expect(existsSync(`${created}.bak`)).toBe(false);
  });

  test("a file that does not parse is left alone, and the snippet is printed to add by hand", async () => {
    const path = join(home.home, ".config", "Code", "User", "mcp.json");
    const broken = '{\n  "servers": {\n    "a": { "command": "x" }\n  \n';
    place(path, broken);
    rmIfExists(`${path}.bak`);
    const result = await twigMcp(["config", "vscode", "--write"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot update ${path}: it is not valid JSON: expected , or } at line 5`);
    expect(result.stderr).toContain("The file was left unchanged");
    expect(result.stderr).toContain('"type": "stdio"');
    expect(readFileSync(path, "utf8")).toBe(broken);
    expect(existsSync(`${path}.bak`)).toBe(false);
  });

  test("a symlinked config (a dotfiles repository) is edited where it lives; the link stays", async () => {
    const real = join(home.home, "dotfiles", "cursor-mcp.json");
    place(real, fixture("cursor-mcp.json"));
    const link = join(home.home, ".cursor", "mcp.json");
    rmIfExists(link);
    symlinkSync(real, link);
    const result = await twigMcp(["config", "cursor", "--write"]);
    expect(result.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8")).mcpServers.twig).toEqual({ command: binary, args: [] });
  });
});

describe("Claude Code", () => {
  test("prints the claude mcp add command", async () => {
    const result = await twigMcp(["config", "claude-code", "--disable", "jira"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`claude mcp add --scope user twig -- ${binary} --disable jira\n`);
  });

  test("--write edits the project's .mcp.json at the repository root, from any subdirectory", async () => {
    const sub = repo.path("src", "deep");
    mkdirSync(sub, { recursive: true });
    const result = await twigMcp(["config", "claude-code", "--write", "--command", binary], sub);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8"))).toEqual({
      mcpServers: { twig: { type: "stdio", command: binary, args: [] } },
    });
    expect(result.stderr).not.toContain("Note:");
    rmSync(repo.path(".mcp.json"));
  });

  test("an existing user-scope twig in ~/.claude.json: says so and prints the remove before the add; a local one is named too", async () => {
    const claudeJson = join(home.home, ".claude.json");
    const before = JSON.stringify({
      mcpServers: { twig: { type: "stdio", command: "/old/dist/twig-mcp", args: [], env: {} } },
      projects: { [repo.root]: { mcpServers: { twig: { command: "/older/twig-mcp", args: ["--repo", "x"] } } } },
    });
    writeFileSync(claudeJson, before);
    try {
      const result = await twigMcp(["config", "claude-code"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`claude mcp remove twig -s user\nclaude mcp add --scope user twig -- ${binary}\n`);
      expect(result.stderr).toContain(`user-scope server 'twig' in ${claudeJson} (runs /old/dist/twig-mcp)`);
      expect(result.stderr).toContain(`local-scope 'twig' for ${repo.root} (runs /older/twig-mcp --repo x)`);
      expect(result.stderr).toContain("'claude mcp remove twig -s local'");
      // Read, never written.
      expect(readFileSync(claudeJson, "utf8")).toBe(before);
    } finally {
      rmSync(claudeJson);
    }
  });

  test("the same user-scope entry already there: nothing to change, no remove", async () => {
    const claudeJson = join(home.home, ".claude.json");
    writeFileSync(claudeJson, JSON.stringify({ mcpServers: { twig: { type: "stdio", command: binary, args: [] } } }));
    try {
      const result = await twigMcp(["config", "claude-code"]);
      // Run, the add would fail with "already exists": nothing to run.
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        `Claude Code already has this twig-mcp as its user-scope server 'twig' (${claudeJson}): nothing to run.\n`,
      );
    } finally {
      rmSync(claudeJson);
    }
  });

  test("twig in both Claude Code scopes: config says so from either side, and which one Claude Code starts", async () => {
    const claudeJson = join(home.home, ".claude.json");
    writeFileSync(claudeJson, JSON.stringify({ mcpServers: { twig: { type: "stdio", command: binary, args: [] } } }));
    try {
      const written = await twigMcp(["config", "claude-code", "--write", "--command", "twig-mcp"]);
      expect(written.code).toBe(0);
      expect(written.stderr).toContain(`Claude Code also has a user-scope 'twig' in ${claudeJson} (runs ${binary}).`);
      expect(written.stderr).toContain(
        `In ${repo.root} Claude Code starts the project-scope one once you approve it, the user-scope one until then (local wins over project, project over user)`,
      );
      expect(written.stderr).toContain("run 'claude mcp remove twig -s user'");
      const printed = await twigMcp(["config", "claude-code"]);
      expect(printed.stdout).toBe("");
      expect(printed.stderr).toContain(
        `Claude Code also has a project-scope 'twig' in ${repo.path(".mcp.json")} (runs twig-mcp).`,
      );
      expect(printed.stderr).toContain("to keep only the user-scope one, run 'claude mcp remove twig -s project'");
    } finally {
      rmSync(claudeJson);
      rmSync(repo.path(".mcp.json"));
      rmSync(repo.path(".mcp.json.bak"), { force: true });
    }
  });

  test("an existing entry in another client's file: says so, and that --write replaces it", async () => {
    const cursor = join(home.home, ".cursor", "mcp.json");
    place(cursor, JSON.stringify({ mcpServers: { twig: { command: "/old/twig-mcp\u001b[2J", args: [] } } }));
    try {
      const result = await twigMcp(["config", "cursor"]);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `${cursor} already has a server 'twig' (runs "/old/twig-mcp\\u001b[2J"); --write replaces it.`,
      );
      expect(result.stderr).not.toContain("\u001b");
    } finally {
      rmSync(cursor);
    }
  });

  test("--write --scope user is refused: ~/.claude.json belongs to Claude Code", async () => {
    const result = await twigMcp(["config", "claude-code", "--write", "--scope", "user"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toStartWith("claude mcp add --scope user twig -- ");
    expect(result.stderr).toContain("Run the command above instead");
    expect(existsSync(join(home.home, ".claude.json"))).toBe(false);
  });
});

describe("printing", () => {
  test("the suggested --write command quotes a path so a shell keeps its $ and backticks", async () => {
    const odd = repo.path("we ird$HOME`x`");
    mkdirSync(odd);
    try {
      const result = await twigMcp(["config", "cursor", "--repo", odd]);
      expect(result.code).toBe(0);
      const line = (result.stdout + result.stderr).split("\n").find((l) => l.startsWith("or let twig-mcp do it: "));
      // Single quotes: POSIX shells expand nothing inside them.
      // twig-mcp is not on the test's PATH: the command names this binary by its path.
      expect(line).toBe(`or let twig-mcp do it: ${binary} config cursor --repo '${odd}' --write`);
    } finally {
      rmSync(odd, { recursive: true, force: true });
    }
  });

  test("stdout is only the snippet; where it goes is on stderr", async () => {
    const result = await twigMcp(["config", "claude-desktop", "--repo", repo.path()]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      mcpServers: { twig: { command: binary, args: ["--repo", repo.root] } },
    });
    expect(result.stderr).toContain(join(home.home, ".config", "Claude", "claude_desktop_config.json"));
  });

  test("--scope project outside a repository says what to do", async () => {
    const result = await twigMcp(["config", "vscode", "--scope", "project", "--write"], home.home);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--scope project needs a repository: run this inside it or pass --repo PATH");
  });

  test("--repo that is not a repository is an error naming it", async () => {
    const result = await twigMcp(["config", "cursor", "--repo", home.home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--repo ${home.home}: No git repository found`);
  });
});

describe("project files are shared through git, so they get a portable command", () => {
  /** A PATH holding only the named programs (empty scripts), so which one is found is up to the test. */
  function pathWith(...programs: string[]): string {
    const dir = join(home.home, `path-${programs.join("-") || "empty"}`);
    mkdirSync(dir, { recursive: true });
    for (const program of programs) writeFileSync(join(dir, program), "#!/bin/sh\n", { mode: 0o755 });
    return dir;
  }

  async function writeProject(client: string, path: string) {
    const proc = Bun.spawn([binary, "config", client, "--write", "--scope", "project"], {
      cwd: repo.root,
      env: { ...home.env, PATH: path },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    return { stderr, code };
  }

  test("twig-mcp on PATH is this binary (a link to it): the entry runs twig-mcp, and a note says so", async () => {
    const dir = join(home.home, "path-linked");
    mkdirSync(dir, { recursive: true });
    rmIfExists(join(dir, "twig-mcp"));
    symlinkSync(binary, join(dir, "twig-mcp"));
    rmIfExists(repo.path(".cursor", "mcp.json"));
    const result = await writeProject("cursor", dir);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(repo.path(".cursor", "mcp.json"), "utf8")).mcpServers.twig).toEqual({
      command: "twig-mcp",
      args: [],
    });
    expect(result.stderr).toContain(
      `Note: project files are shared through git, so the entry runs 'twig-mcp' rather than this executable's path (${binary})`,
    );
  });

  test.each([[["twig-mcp", "bun"]], [["bun"]], [[]]] as const)(
    "with %p on PATH (not this binary): its absolute path, never bunx or npx",
    async (programs) => {
      rmIfExists(repo.path(".cursor", "mcp.json"));
      const result = await writeProject("cursor", pathWith(...programs));
      expect(result.code).toBe(0);
      expect(JSON.parse(readFileSync(repo.path(".cursor", "mcp.json"), "utf8")).mcpServers.twig).toEqual({
        command: binary,
        args: [],
      });
      expect(result.stderr).toContain("Note: the entry runs this executable's path, which is only on this machine");
    },
  );

  test("the user scope keeps the absolute path", async () => {
    const result = await twigMcp(["config", "cursor"]);
    expect(JSON.parse(result.stdout).mcpServers.twig.command).toBe(binary);
    expect(result.stderr).not.toContain("Note:");
  });
});

describe("--write again respects what the user set", () => {
  const path = () => join(home.home, ".cursor", "mcp.json");
  const entry = () => JSON.parse(readFileSync(path(), "utf8")).mcpServers.twig;

  test("no --repo/--disable keeps the entry's server args and says so; new flags replace them and say what changed", async () => {
    place(
      path(),
      '{\n  "mcpServers": {\n    "twig": { "command": "/old/twig-mcp", "args": ["--repo", "/src/shop", "-v"], "env": { "JIRA_HOST": "acme.atlassian.net" } }\n  }\n}\n',
    );
    const again = await twigMcp(["config", "cursor", "--write"]);
    expect(again.code).toBe(0);
    expect(entry()).toEqual({
      command: binary,
      args: ["--repo", "/src/shop", "-v"],
      env: { JIRA_HOST: "acme.atlassian.net" },
    });
    expect(again.stderr).toContain(`  command was /old/twig-mcp, now ${binary}\n`);
    expect(again.stderr).toContain(
      "  kept the server arguments already there: --repo /src/shop -v (pass --repo or --disable to replace them)\n",
    );

    const same = await twigMcp(["config", "cursor", "--write"]);
    expect(same.stderr).toContain("nothing to change");
    expect(same.stderr).toContain("kept the server arguments already there: --repo /src/shop -v");

    const replaced = await twigMcp(["config", "cursor", "--write", "--disable", "jira"]);
    expect(replaced.code).toBe(0);
    expect(entry().args).toEqual(["--disable", "jira"]);
    expect(replaced.stderr).toContain("  server arguments were --repo /src/shop -v, now --disable jira\n");
    expect(replaced.stderr).not.toContain("command was");
  });
});

function rmIfExists(path: string): void {
  rmSync(path, { force: true });
}
