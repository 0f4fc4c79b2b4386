import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLIENT_SPECS } from "../../src/cli/config-paths.ts";
import { binaryPath } from "../support/binary.ts";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const GITHUB_TOKEN = "ghp_doctorSecretToken0123456789";
const JIRA_TOKEN = "jira-secret-api-token-xyz";

let repo: GitRepo;
beforeAll(() => {
  repo = makeRepo({ commit: true });
  repo.git("remote", "add", "origin", "https://github.com/acme/shop.git");
  mkdirSync(repo.path(".twig"));
  writeFileSync(repo.path(".twig", "state.json"), twigJson(EXAMPLE_STATE));
});
afterAll(() => repo.cleanup());

/** A HOME with twig's registry listing the repository and a private .netrc for GitHub and Jira. */
function healthyHome(extraEnv: Record<string, string> = {}): HermeticHome {
  const home = makeHermeticHome({ JIRA_HOST: "acme.atlassian.net", ...extraEnv });
  mkdirSync(home.twigDataDir, { recursive: true });
  writeFileSync(join(home.twigDataDir, "registry.json"), JSON.stringify([{ name: "shop", path: repo.root }]));
  writeNetrc(home, 0o600);
  return home;
}

function writeNetrc(home: HermeticHome, mode: number): void {
  const path = join(home.home, ".netrc");
  writeFileSync(
    path,
    `machine github.com login alice password ${GITHUB_TOKEN}\nmachine acme.atlassian.net login alice@acme.com password ${JIRA_TOKEN}\n`,
  );
  chmodSync(path, mode);
}

interface DoctorRun {
  code: number;
  stdout: string;
  checks: Array<{ id: string; status: string; detail: string; hint?: string }>;
}

async function doctor(home: HermeticHome, args: string[] = [], cwd = repo.root): Promise<DoctorRun> {
  const run = async (extra: string[]) => {
    const proc = Bun.spawn([await binaryPath(), "doctor", ...args, ...extra], { cwd, env: home.env, stdout: "pipe" });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { stdout, code };
  };
  const [text, json] = await Promise.all([run([]), run(["--json"])]);
  expect(json.code).toBe(text.code);
  return { code: text.code, stdout: text.stdout, checks: JSON.parse(json.stdout).checks };
}

/** Every file with its size and modification time: doctor must change none and create none. */
function listFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => {
      const info = statSync(path);
      return `${path} ${info.size} ${info.mtimeMs}`;
    })
    .sort();
}

function statusOf(run: DoctorRun, id: string): string | undefined {
  return run.checks.find((c) => c.id === id)?.status;
}

function expectNoSecrets(run: DoctorRun): void {
  for (const secret of [GITHUB_TOKEN, JIRA_TOKEN]) {
    expect(run.stdout).not.toContain(secret);
    expect(JSON.stringify(run.checks)).not.toContain(secret);
  }
}

describe("twig-mcp doctor", () => {
  test("a complete setup: every check passes, credentials are named by source only", async () => {
    const home = healthyHome();
    // twig-mcp on PATH is a link to this very binary, as Homebrew's bin/ or ~/.local/bin make it.
    const bin = join(home.home, "bin");
    mkdirSync(bin);
    symlinkSync(await binaryPath(), join(bin, "twig-mcp"));
    home.env.PATH = `${bin}:${home.env.PATH}`;
    try {
      const before = [...listFiles(home.home), ...listFiles(repo.root)];
      const run = await doctor(home);
      expect([...listFiles(home.home), ...listFiles(repo.root)]).toEqual(before);
      expect(run.code).toBe(0);
      expect(run.checks.map((c) => [c.id, c.status])).toEqual([
        ["repository", "ok"],
        ["state", "ok"],
        ["registry", "ok"],
        ["dirs", "ok"],
        ["path", "ok"],
        ["registrations", "info"],
        ["netrc", "ok"],
        ["github-repo", "ok"],
        ["github-credentials", "ok"],
        ["jira-host", "ok"],
        ["jira-credentials", "ok"],
      ]);
      expect(run.stdout).toContain(`[ok]    repository`);
      expect(run.stdout).toContain(`${repo.root} (on main)`);
      expect(run.stdout).toContain("3 branches, 1 root");
      expect(run.stdout).toContain("this repository is one of them");
      expect(run.stdout).toContain("machines: github.com, acme.atlassian.net");
      expect(run.stdout).toContain("acme/shop on github.com");
      expect(run.stdout).toContain(`for github.com: from ${join(home.home, ".netrc")} (machine github.com)`);
      expect(run.stdout).toContain("https://acme.atlassian.net (Jira Cloud)");
      expect(run.stdout).toContain('from ~/.netrc (machine "acme.atlassian.net")');
      expect(run.stdout).toContain("Everything twig-mcp needs is in place.");
      expectNoSecrets(run);
    } finally {
      home.cleanup();
    }
  });

  test("another program called twig-mcp first on PATH is a warning naming both paths", async () => {
    const home = healthyHome();
    const bin = join(home.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "twig-mcp"), "#!/bin/sh\necho upstream twig-mcp\n", { mode: 0o755 });
    home.env.PATH = `${bin}:${home.env.PATH}`;
    try {
      const run = await doctor(home);
      const path = run.checks.find((c) => c.id === "path");
      expect(path?.status).toBe("warn");
      expect(path?.detail).toBe(
        `${join(bin, "twig-mcp")} is another program, not this twig-mcp (${await binaryPath()}); ${dirname(await binaryPath())} is not on PATH`,
      );
      expect(path?.hint).toContain("upstream twig ships a twig-mcp of its own");
      expect(run.stdout).toContain("twig-mcp on PATH");
    } finally {
      home.cleanup();
    }
  });

  test("run by its full path from a directory not on PATH: says so, with the line for the shell's rc file", async () => {
    const home = healthyHome();
    try {
      const run = await doctor(home);
      const path = run.checks.find((c) => c.id === "path");
      const dir = dirname(await binaryPath());
      expect(path?.status).toBe("info");
      expect(path?.detail).toBe(`none: this one's directory, ${dir}, is not on PATH`);
      expect(path?.hint).toContain(`export PATH="${dir}:$PATH"`);
    } finally {
      home.cleanup();
    }
  });

  test("each client's twig entry: this binary or not, env against the shell, Claude Code's scope that wins; nothing written", async () => {
    const home = healthyHome({ GH_TOKEN: GITHUB_TOKEN });
    const binary = await binaryPath();
    const place = (path: string, value: unknown) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify(value));
    };
    const servers = (twig: unknown) => ({ mcpServers: { other: { command: "x" }, twig } });
    place(join(home.home, ".claude.json"), servers({ type: "stdio", command: binary, args: [] }));
    place(repo.path(".mcp.json"), servers({ command: "twig-mcp", args: [] }));
    place(join(home.home, ".config", "Claude", "claude_desktop_config.json"), servers({ command: binary, env: {} }));
    const env = { GH_TOKEN: "x", JIRA_HOST: "acme.atlassian.net" };
    place(join(home.home, ".cursor", "mcp.json"), servers({ command: "/usr/bin/env", args: ["twig-mcp"], env }));
    // A clone's project file: what it names reaches the terminal escaped.
    place(repo.path(".cursor", "mcp.json"), servers({ command: "evil\u001b[2J", env }));
    place(join(home.home, ".config", "Code", "User", "mcp.json"), { servers: { twig: { command: binary, env } } });
    const codex = join(home.home, ".codex", "config.toml");
    mkdirSync(dirname(codex), { recursive: true });
    writeFileSync(codex, '[mcp_servers.twig]\ncommand = "/gone/twig-mcp"\n');
    try {
      const before = [...listFiles(home.home), ...listFiles(repo.root)];
      const run = await doctor(home);
      expect([...listFiles(home.home), ...listFiles(repo.root)]).toEqual(before);
      const claudeJson = join(home.home, ".claude.json");
      const registrations = run.checks.filter((c) => c.id.startsWith("registration"));
      expect(registrations.map((c) => [c.id, c.status, c.detail])).toEqual([
        [
          "registration-claude-code-user",
          "warn",
          `${claudeJson}: not used in this project once the project's .mcp.json entry is approved: Claude Code starts the project-scope entry`,
        ],
        ["registration-claude-code-project", "warn", `${repo.path(".mcp.json")}: its command twig-mcp is not on PATH`],
        [
          "registration-claude-desktop-user",
          "warn",
          `${join(home.home, ".config", "Claude", "claude_desktop_config.json")}: its env lacks JIRA_HOST, GH_TOKEN, set in this shell`,
        ],
        [
          "registration-cursor-user",
          "warn",
          `${join(home.home, ".cursor", "mcp.json")}: it runs another program (/usr/bin/env twig-mcp), not this one`,
        ],
        [
          "registration-cursor-project",
          "warn",
          `${repo.path(".cursor", "mcp.json")}: its command "evil\\u001b[2J" is not on PATH`,
        ],
        [
          "registration-codex-user",
          "warn",
          `${codex}: its command /gone/twig-mcp does not exist; its env lacks JIRA_HOST, GH_TOKEN, set in this shell`,
        ],
        [
          "registration-vscode-user",
          "ok",
          `${join(home.home, ".config", "Code", "User", "mcp.json")}: runs this twig-mcp`,
        ],
      ]);
      expect(run.stdout).toContain("Claude Code (project)");
      expect(registrations[0]?.hint).toContain("claude mcp remove twig -s user");
      expect(run.stdout).not.toContain("\u001b");
      expectNoSecrets(run);
    } finally {
      home.cleanup();
      rmSync(repo.path(".mcp.json"));
      rmSync(repo.path(".cursor"), { recursive: true });
    }
  });

  test("a clone's project file that leads out of the repository (a linked .vscode, a linked .mcp.json) is not read", async () => {
    const home = healthyHome();
    const outside = join(home.home, "elsewhere");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "mcp.json"), JSON.stringify({ servers: { twig: { command: "/out/of/repo" } } }));
    writeFileSync(join(outside, "any.json"), JSON.stringify({ mcpServers: { twig: { command: "/out/of/repo" } } }));
    symlinkSync(outside, repo.path(".vscode"));
    symlinkSync(join(outside, "any.json"), repo.path(".mcp.json"));
    try {
      const run = await doctor(home);
      const ids = run.checks.map((c) => c.id);
      expect(ids).not.toContain("registration-vscode-project");
      expect(ids).not.toContain("registration-claude-code-project");
      expect(run.stdout).not.toContain("/out/of/repo");
    } finally {
      home.cleanup();
      rmSync(repo.path(".vscode"));
      rmSync(repo.path(".mcp.json"));
    }
  });

  test("the README's troubleshooting table has a row for each check, under the name doctor prints", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("| Check |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    const named = rows.flatMap((row) => (row.split("|")[1] ?? "").replace(/\(`--online`\)/, "").split(","));
    const cli = join(import.meta.dir, "..", "..", "src", "cli");
    const source = ["doctor.ts", "doctor-registrations.ts"].map((f) => readFileSync(join(cli, f), "utf8")).join("");
    const titles = [...source.matchAll(/checker\("[^"]+", "([^"]+)"\)/g)].map((m) => m[1] as string);
    titles.push("GitHub sign-in", "Jira sign-in");
    // One per client file with a twig entry, titled by client and scope.
    for (const [client, spec] of Object.entries(CLIENT_SPECS)) {
      const scopes = ["user", ...(spec.projectFile ? ["project"] : []), ...(client === "claude-code" ? ["local"] : [])];
      titles.push(...scopes.map((scope) => `${spec.title} (${scope})`));
    }
    expect(named.map((name) => name.trim()).sort()).toEqual([...new Set(titles)].sort());
  });

  test("a .netrc others can read is a warning with the chmod to run", async () => {
    const home = healthyHome();
    try {
      writeNetrc(home, 0o644);
      const run = await doctor(home);
      expect(run.code).toBe(0);
      const netrc = run.checks.find((c) => c.id === "netrc");
      expect(netrc?.status).toBe("warn");
      expect(netrc?.detail).toContain("is readable by other users (mode 644)");
      expect(netrc?.hint).toBe(`It holds tokens: chmod 600 ${join(home.home, ".netrc")}`);
      expect(run.stdout).toContain("Nothing blocks use; 1 warning.");
    } finally {
      home.cleanup();
    }
  });

  test("outside a repository, without JIRA_HOST or a token: warnings, not failures", async () => {
    const home = makeHermeticHome();
    try {
      const run = await doctor(home, [], home.home);
      expect(run.code).toBe(0);
      expect(statusOf(run, "repository")).toBe("warn");
      expect(statusOf(run, "state")).toBe("info");
      expect(statusOf(run, "registry")).toBe("info");
      expect(statusOf(run, "netrc")).toBe("info");
      expect(statusOf(run, "github-credentials")).toBe("warn");
      expect(statusOf(run, "jira-host")).toBe("warn");
      const hints = run.checks.map((c) => c.hint ?? "").join("\n");
      expect(hints).toContain("add --repo PATH to the client's configuration");
      expect(hints).toContain("Export GH_TOKEN");
      expect(hints).toContain("set it in the server's \"env\" in the client's configuration");
    } finally {
      home.cleanup();
    }
  });

  test("the environment's token is found and named", async () => {
    const home = makeHermeticHome({ GH_TOKEN: GITHUB_TOKEN });
    try {
      const run = await doctor(home, ["--disable", "jira"]);
      expect(run.checks.find((c) => c.id === "github-credentials")?.detail).toBe("for github.com: from $GH_TOKEN");
      expect(statusOf(run, "jira")).toBe("info");
      expectNoSecrets(run);
    } finally {
      home.cleanup();
    }
  });

  test("an ssh remote on a ~/.ssh/config Host alias is github.com, with github.com's token", async () => {
    const aliased = makeRepo({ commit: true });
    aliased.git("remote", "add", "origin", "git@github-work:octo/widgets.git");
    const home = makeHermeticHome({ GH_TOKEN: GITHUB_TOKEN });
    try {
      mkdirSync(join(home.home, ".ssh"));
      writeFileSync(join(home.home, ".ssh", "config"), "Host github-work\n  HostName github.com\n");
      const run = await doctor(home, ["--disable", "jira"], aliased.root);
      expect(run.checks.find((c) => c.id === "github-repo")?.detail).toBe("octo/widgets on github.com");
      expect(run.checks.find((c) => c.id === "github-credentials")?.detail).toBe("for github.com: from $GH_TOKEN");
    } finally {
      home.cleanup();
      aliased.cleanup();
    }
  });

  test("reads TWIG_MCP_REPO and TWIG_MCP_DISABLE as the server does, and reports what it ignored", async () => {
    const home = makeHermeticHome({ GH_TOKEN: GITHUB_TOKEN, TWIG_MCP_REPO: repo.root, TWIG_MCP_DISABLE: "JIRA, jria" });
    try {
      const run = await doctor(home, [], home.home);
      expect(run.code).toBe(0);
      expect(statusOf(run, "repository")).toBe("ok");
      expect(statusOf(run, "state")).toBe("ok");
      expect(statusOf(run, "jira")).toBe("info");
      expect(statusOf(run, "settings")).toBe("warn");
      expect(run.checks.find((c) => c.id === "settings")?.detail).toContain(
        "TWIG_MCP_DISABLE: ignored 'jria' (did you mean 'jira'?)",
      );
    } finally {
      home.cleanup();
    }
  });

  test.each([
    [
      "--repo that does not exist",
      (_home: HermeticHome) => ["--repo", "/nonexistent/checkout"],
      "repository",
      "/nonexistent/checkout does not exist",
    ],
    [
      "a corrupt state file",
      (_home: HermeticHome) => {
        writeFileSync(repo.path(".twig", "state.json"), "{ not json");
        return [];
      },
      "state",
      "Failed to parse state file",
    ],
    [
      "a corrupt registry",
      (home: HermeticHome) => {
        writeFileSync(join(home.twigDataDir, "registry.json"), '{"repositories": 1}');
        return [];
      },
      "registry",
      "Failed to parse registry file",
    ],
    [
      "an invalid JIRA_HOST",
      (home: HermeticHome) => {
        home.env.JIRA_HOST = "https://user:pw@jira_example.com/";
        return [];
      },
      "jira-host",
      "invalid_config: JIRA_HOST has characters that are not allowed in a host name",
    ],
    [
      "JIRA_HOST without credentials for it",
      (home: HermeticHome) => {
        home.env.JIRA_HOST = "jira.example.com";
        return [];
      },
      "jira-credentials",
      "Jira credentials not found",
    ],
  ])("%s blocks use: FAIL and exit 1", async (_name, arrange, id, message) => {
    const home = healthyHome();
    try {
      const args = arrange(home);
      const run = await doctor(home, args);
      expect(run.code).toBe(1);
      const failing = run.checks.filter((c) => c.status === "fail");
      expect(failing.map((c) => c.id)).toEqual([id]);
      expect(failing[0]?.detail).toContain(message);
      expect(run.stdout).toContain("1 problem blocks use");
      expect(run.stdout).toMatch(/\[FAIL\]/);
      expect(run.stdout).not.toContain("pw@");
      expectNoSecrets(run);
    } finally {
      writeFileSync(repo.path(".twig", "state.json"), twigJson(EXAMPLE_STATE));
      home.cleanup();
    }
  });
});

describe("twig-mcp doctor --online", () => {
  test("without credentials says which sign-ins it skipped, and why", async () => {
    const home = makeHermeticHome();
    try {
      const plain = await doctor(home, [], home.home);
      const run = await doctor(home, ["--online"], home.home);
      expect(run.stdout).not.toBe(plain.stdout);
      const detail = (id: string) => run.checks.find((c) => c.id === id)?.detail;
      expect(detail("github-online")).toBe("skipped: no token for github.com");
      expect(detail("jira-online")).toBe("skipped: JIRA_HOST is not set");
      const off = await doctor(home, ["--online", "--disable", "github"], home.home);
      expect(off.checks.find((c) => c.id === "github-online")?.detail).toBe("skipped: it is turned off");
    } finally {
      home.cleanup();
    }
  });

  const github = useFakeGitHub({ token: GITHUB_TOKEN, resetAfterEach: false });
  let jira: ReturnType<typeof Bun.serve>;
  const jiraAuth = `Basic ${Buffer.from(`alice@acme.com:${JIRA_TOKEN}`).toString("base64")}`;

  beforeAll(async () => {
    github.route("GET", "/user", () => ({ body: { login: "alice-gh" } }));
    jira = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        if (new URL(request.url).pathname !== "/rest/api/2/myself") return new Response("not found", { status: 404 });
        if (request.headers.get("authorization") !== jiraAuth)
          return Response.json({ errorMessages: [] }, { status: 401 });
        return Response.json({ displayName: "Alice Example", emailAddress: "alice@acme.com" });
      },
    });
  });
  afterAll(async () => {
    await jira.stop(true);
  });

  function onlineHome(): HermeticHome {
    const home = healthyHome({ GITHUB_API_URL: github.url, JIRA_HOST: `http://127.0.0.1:${jira.port}` });
    writeFileSync(
      join(home.home, ".netrc"),
      `machine github.com login alice password ${GITHUB_TOKEN}\nmachine 127.0.0.1:${jira.port} login alice@acme.com password ${JIRA_TOKEN}\n`,
    );
    chmodSync(join(home.home, ".netrc"), 0o600);
    return home;
  }

  test("signs in to both with the configured credentials", async () => {
    const home = onlineHome();
    try {
      const run = await doctor(home, ["--online"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("signed in to github.com as alice-gh");
      expect(run.stdout).toContain(`signed in to http://127.0.0.1:${jira.port} as Alice Example`);
      expectNoSecrets(run);
    } finally {
      home.cleanup();
    }
  });

  test("rejected credentials fail, with the services' explanation", async () => {
    const home = onlineHome();
    try {
      writeFileSync(
        join(home.home, ".netrc"),
        `machine github.com login alice password wrong-token\nmachine 127.0.0.1:${jira.port} login alice@acme.com password wrong\n`,
      );
      const run = await doctor(home, ["--online"]);
      expect(run.code).toBe(1);
      expect(statusOf(run, "github-online")).toBe("fail");
      expect(statusOf(run, "jira-online")).toBe("fail");
      expect(run.checks.find((c) => c.id === "github-online")?.detail).toMatch(/credentials|401|Bad credentials/i);
      expect(run.stdout).not.toContain("wrong-token");
    } finally {
      home.cleanup();
    }
  });
});
