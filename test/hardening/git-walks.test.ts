/**
 * Walks a hostile repository could make unbounded, and paths it could make the server touch,
 * through the compiled binary: config includes that fan out, `refs/heads` linked out or holding
 * links back up, thousands of ref directories to watch, `core.worktree = /`, worktree paths in
 * `.twig/state.json` that name another host, and state or registry files linked to a secret.
 * thousands of packs against a low descriptor limit, and a packed-refs of hundreds of thousands of refs.
 * Each call must come back with an answer or a structured error that quotes nothing it should not.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gitEnv } from "../support/git-repo.ts";
import { deltaChainHistory, packPerCommit } from "../support/hostile-git.ts";
import { RawServer, type ToolResult } from "./support/raw-server.ts";
import { readTrace, straceWrapper } from "./support/strace.ts";
import { makeWorld, type World } from "./support/world.ts";

setDefaultTimeout(90_000);

/** A hang fails the call instead of stalling the suite; the unbounded walks ran for minutes. */
const CALL_TIMEOUT_MS = 30_000;
const SECRET_KEY = "prod-db-password=hunter2";

let world: World;
let cases: string;
let counter = 0;

beforeAll(() => {
  // Nothing here should reach GitHub; if something did, it meets a closed port, not the network.
  world = makeWorld({ GITHUB_API_URL: "http://127.0.0.1:9/" });
  cases = join(world.repo.sandbox, "cases");
  mkdirSync(cases);
});

afterAll(() => world?.cleanup());

/** A fresh copy of the example repository under the exposed root, changed by `change`. */
function caseRepo(change: (dir: string) => void): string {
  const dir = join(cases, `case-${++counter}`);
  cpSync(world.root, dir, { recursive: true, verbatimSymlinks: true });
  change(dir);
  return dir;
}

function git(dir: string, ...args: string[]): void {
  world.repo.gitIn(dir, ...args);
}

/**
 * Runs `body` against a server started in `cwd` (roots: the cases folder) and kills it after: a
 * server stuck in an unbounded walk would never answer the end of its input.
 */
async function withServer<T>(
  body: (server: RawServer) => Promise<T>,
  options: { cwd?: string; wrapper?: string[] } = {},
): Promise<T> {
  const server = await RawServer.start({ cwd: options.cwd ?? world.root, env: world.env, wrapper: options.wrapper });
  server.onServerRequest = () => ({ roots: [{ uri: pathToFileURL(cases).href, name: "cases" }] });
  try {
    await server.initialize({ capabilities: { roots: { listChanged: true } } });
    return await body(server);
  } finally {
    server.proc.kill("SIGKILL");
    await server.exited;
  }
}

function call(server: RawServer, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return server.call(name, args, { timeoutMs: CALL_TIMEOUT_MS });
}

describe("git config includes (1a)", () => {
  test("files that each include the next ten times are read once each, and the call comes back", async () => {
    const dir = caseRepo((d) => {
      // Eight levels of ten includes each (nine deep with the repository's config, within git's
      // limit): 10^8 reads when every path is followed.
      for (let level = 0; level < 8; level++) {
        const next = `[include]\n\tpath = fan-${level + 1}\n`.repeat(10);
        writeFileSync(join(d, ".git", `fan-${level}`), next);
      }
      writeFileSync(join(d, ".git", "fan-8"), '[url "https://github.com/"]\n\tinsteadOf = fanned:\n');
    });
    git(dir, "remote", "set-url", "origin", "fanned:octo/shop.git");
    // Last: git itself follows every path, so no git command runs on this repository after it.
    git(dir, "config", "include.path", "fan-0");
    const result = await withServer((server) => call(server, "get_pr_status", { repo: dir, pr_number: 1 }));
    // Past the config, the call fails for want of credentials or of GitHub, not for the includes.
    expect(result.isError).toBe(true);
    expect(result.envelope.error?.message).not.toContain("include");
    expect(result.envelope.error?.code).not.toBe("unsupported_repo");
  });

  test("more included files than the cap is an error naming the cap", async () => {
    const dir = caseRepo((d) => {
      for (let i = 0; i < 80; i++) writeFileSync(join(d, ".git", `part-${i}`), `[x]\n\tpart = ${i}\n`);
    });
    for (let i = 0; i < 80; i++) git(dir, "config", "--add", "include.path", `part-${i}`);
    const result = await withServer((server) => call(server, "get_pr_status", { repo: dir, pr_number: 1 }));
    expect(result.envelope.error?.code).toBe("unsupported_repo");
    expect(result.envelope.error?.message).toContain("includes more than 64 files");
  });
});

describe("the loose-ref walk (1b)", () => {
  test("a refs/heads linked to another directory is refused, and its files are not branches", async () => {
    const outside = join(world.repo.sandbox, "outside-heads");
    mkdirSync(join(outside, "nested"), { recursive: true });
    writeFileSync(join(outside, "prod-password"), "not a ref\n");
    writeFileSync(join(outside, "nested", "id_rsa"), "not a ref\n");
    const dir = caseRepo((d) => {
      rmSync(join(d, ".git", "refs", "heads"), { recursive: true });
      symlinkSync(outside, join(d, ".git", "refs", "heads"));
    });
    git(dir, "pack-refs", "--all");
    const result = await withServer((server) =>
      call(server, "get_branch_stack", { repo: dir, branch: "prod-password" }),
    );
    expect(result.isError).toBe(true);
    expect(result.envelope.error?.code).toBe("unsupported_repo");
    expect(result.envelope.error?.message).toContain("symbolic link");
  });

  test("links inside refs/heads, one back up to itself, are not followed", async () => {
    const dir = caseRepo((d) => {
      symlinkSync(".", join(d, ".git", "refs", "heads", "loop"));
      symlinkSync("/", join(d, ".git", "refs", "heads", "root"));
      // A name that is not UTF-8 sends the walk to read that directory again as raw bytes.
      const bad = Buffer.concat([Buffer.from(join(d, ".git", "refs", "heads", "bad")), Buffer.from([0xff])]);
      writeFileSync(bad, readFileSync(join(d, ".git", "HEAD")));
    });
    const result = await withServer((server) => call(server, "get_branch_tree", { repo: dir }));
    expect(result.isError).toBe(false);
    const names = JSON.stringify(result.structured);
    expect(names).not.toContain("loop/");
    expect(names).not.toContain("root/");
  });
});

/** The inotify watches `pid` holds, over all its inotify descriptors (Linux). */
function inotifyWatches(pid: number): number {
  let watches = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    try {
      watches += readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("inotify wd:")).length;
    } catch {
      // closed since listed
    }
  }
  return watches;
}

describe("resource subscriptions (1c)", () => {
  test.skipIf(process.platform !== "linux")(
    "thousands of directories under refs/heads take at most the capped number of inotify watches",
    async () => {
      const dir = caseRepo((d) => {
        const heads = join(d, ".git", "refs", "heads");
        for (let i = 0; i < 1500; i++) mkdirSync(join(heads, `ns-${i}`, "deeper"), { recursive: true });
        symlinkSync(".", join(heads, "loop"));
      });
      const watches = await withServer(
        async (server) => {
          const response = await server.request("resources/subscribe", { uri: "twig://repo/tree" });
          expect(response.error).toBeUndefined();
          return inotifyWatches(server.pid);
        },
        { cwd: dir },
      );
      // 256 ref directories, plus the work tree, .twig, the git dir and a few the runtime keeps.
      expect(watches).toBeGreaterThan(3);
      expect(watches).toBeLessThanOrEqual(256 + 16);
    },
  );
});

describe("core.worktree of the default repository (2)", () => {
  test("core.worktree = / exposes nothing beyond the repository the server was started in", async () => {
    const elsewhere = join(world.repo.sandbox, "private-repo");
    mkdirSync(elsewhere);
    git(elsewhere, "init", "-q", "-b", "main");
    git(elsewhere, "commit", "-q", "--allow-empty", "-m", "private");
    const dir = caseRepo(() => {});
    git(dir, "config", "core.worktree", "/");
    const [own, other] = await withServer(
      async (server) => [
        await call(server, "get_current_branch", {}),
        await call(server, "get_current_branch", { repo: elsewhere }),
      ],
      { cwd: dir },
    );
    expect(other?.text).not.toContain('"main"');
    expect(other?.envelope.error?.code).toBe("invalid_params");
    expect(own?.envelope.error?.code).toBe("unsupported_repo");
    expect(own?.envelope.error?.message).toContain("core.worktree");
  });
});

describe("worktree paths from twig's state (3)", () => {
  test.skipIf(straceWrapper("/tmp") === null)(
    "paths naming another host are compared as text, never stat'ed or opened",
    async () => {
      const dir = caseRepo((d) => {
        writeFileSync(
          join(d, ".twig", "state.json"),
          JSON.stringify({
            version: 1,
            worktrees: [
              { name: "net", path: "/net/evil-host/share/wt", branch: "main" },
              { name: "unc", path: "//evil-host/share/wt", branch: "main" },
            ],
          }),
        );
      });
      const trace = straceWrapper(join(cases, `trace-${counter}`)) as { wrapper: string[]; output: string };
      mkdirSync(join(cases, `trace-${counter}`));
      const result = await withServer((server) => call(server, "get_worktrees", {}), {
        cwd: dir,
        wrapper: trace.wrapper,
      });
      expect(result.isError).toBe(false);
      expect(JSON.stringify(result.structured)).toContain("evil-host");
      const touched = readTrace(trace.output).filter((syscall) => syscall.path.includes("evil-host"));
      expect(touched.map((syscall) => syscall.line)).toEqual([]);
    },
  );
});

describe("pointers in a repository named as `repo` (3)", () => {
  test.skipIf(straceWrapper("/tmp") === null)(
    "a .git file, a .git symlink or a commondir naming another host is refused without touching it",
    async () => {
      const gitfile = join(cases, "gitfile-to-host");
      mkdirSync(gitfile);
      writeFileSync(join(gitfile, ".git"), "gitdir: //evil-host/share/repo/.git\n");
      const linked = join(cases, "symlink-to-host");
      mkdirSync(linked);
      symlinkSync("/net/evil-host/share/repo/.git", join(linked, ".git"));
      const common = caseRepo((d) => writeFileSync(join(d, ".git", "commondir"), "//evil-host/share/common\n"));
      const traceDir = join(world.repo.sandbox, `trace-pointers-${counter}`);
      mkdirSync(traceDir);
      const trace = straceWrapper(traceDir) as { wrapper: string[]; output: string };
      const results = await withServer(
        async (server) => [
          await call(server, "get_current_branch", { repo: gitfile }),
          await call(server, "get_current_branch", { repo: linked }),
          await call(server, "get_current_branch", { repo: common }),
        ],
        { wrapper: trace.wrapper },
      );
      for (const result of results) {
        expect(result.envelope.error?.code).toBe("invalid_params");
        expect(result.envelope.error?.message).toContain("evil-host");
      }
      const touched = readTrace(trace.output).filter((syscall) => syscall.path.includes("evil-host"));
      expect(touched.map((syscall) => syscall.line)).toEqual([]);
    },
  );
});

describe("includes named by the repository's own config (3)", () => {
  test("an include.path leaving the repository is refused unread; one inside it is followed", async () => {
    const outsideFile = join(world.repo.sandbox, "outside.gitconfig");
    writeFileSync(outsideFile, '[url "https://github.com/"]\n\tinsteadOf = away:\n');
    const away = caseRepo(() => {});
    git(away, "remote", "set-url", "origin", "away:octo/shop.git");
    git(away, "config", "include.path", outsideFile);
    const inside = caseRepo((d) => {
      writeFileSync(join(d, "shared.gitconfig"), '[url "https://github.com/"]\n\tinsteadOf = here:\n');
    });
    git(inside, "remote", "set-url", "origin", "here:octo/shop.git");
    git(inside, "config", "include.path", "../shared.gitconfig");
    const [refused, followed] = await withServer(async (server) => [
      await call(server, "get_pr_status", { repo: away, pr_number: 1 }),
      await call(server, "get_pr_status", { repo: inside, pr_number: 1 }),
    ]);
    expect(refused?.envelope.error?.code).toBe("unsupported_repo");
    expect(refused?.envelope.error?.message).toContain("outside the repository");
    // Past the config: no credentials in this world, so the call stops there.
    expect(followed?.envelope.error?.code).toBe("credentials_missing");
  });
});

describe("state and registry files linked out, and parse errors (4)", () => {
  const secretFile = () => {
    const path = join(world.repo.sandbox, "secrets.json");
    writeFileSync(path, JSON.stringify({ branches: { [SECRET_KEY]: { jira_issue: 1 } } }));
    return path;
  };

  test("a state.json linked to a file outside the repository is refused without reading it", async () => {
    const target = secretFile();
    const dir = caseRepo((d) => {
      rmSync(join(d, ".twig", "state.json"));
      symlinkSync(target, join(d, ".twig", "state.json"));
    });
    const result = await withServer((server) => call(server, "list_branches", { repo: dir }));
    expect(result.envelope.error?.code).toBe("no_twig_state");
    expect(result.envelope.error?.message).toContain("symbolic link");
    expect(result.text).not.toContain("hunter2");
  });

  test("a .twig directory linked out of the repository is refused the same way", async () => {
    const target = join(world.repo.sandbox, "elsewhere-twig");
    mkdirSync(target, { recursive: true });
    cpSync(secretFile(), join(target, "state.json"));
    const dir = caseRepo((d) => {
      rmSync(join(d, ".twig"), { recursive: true });
      symlinkSync(target, join(d, ".twig"));
    });
    const result = await withServer((server) => call(server, "list_branches", { repo: dir }));
    expect(result.envelope.error?.message).toContain("symbolic link");
    expect(result.text).not.toContain("hunter2");
  });

  test("a registry.json linked out of twig's directory is refused", async () => {
    const registry = join(world.twigDataDir, "registry.json");
    const saved = readFileSync(registry);
    rmSync(registry);
    symlinkSync(secretFile(), registry);
    try {
      const result = await withServer((server) => call(server, "list_repositories", {}));
      expect(result.envelope.error?.code).toBe("invalid_registry");
      expect(result.envelope.error?.message).toContain("symbolic link");
      expect(result.text).not.toContain("hunter2");
    } finally {
      rmSync(registry);
      writeFileSync(registry, saved);
    }
  });

  test("a broken state.json is named by line and column, quoting neither keys nor values", async () => {
    const broken = caseRepo((d) => {
      writeFileSync(join(d, ".twig", "state.json"), `{\n  "branches": {\n    "${SECRET_KEY}": hunter2\n  }\n}\n`);
    });
    const wrongType = caseRepo((d) => {
      writeFileSync(
        join(d, ".twig", "state.json"),
        `{\n  "branches": {\n    "${SECRET_KEY}": { "jira_issue": 42 }\n  }\n}\n`,
      );
    });
    const [syntax, schema] = await withServer(async (server) => [
      await call(server, "list_branches", { repo: broken }),
      await call(server, "list_branches", { repo: wrongType }),
    ]);
    expect(syntax?.envelope.error?.message).toContain("line 3, column");
    expect(schema?.envelope.error?.message).toContain("line 3, column 49");
    expect(schema?.envelope.error?.message).toContain("branches.*.jira_issue");
    for (const result of [syntax, schema]) {
      expect(result?.envelope.error?.code).toBe("no_twig_state");
      expect(result?.text).not.toContain("hunter2");
      expect(result?.text).not.toContain("prod-db");
    }
  });
});

describe("a long commit walk (issue #38)", () => {
  test("the server answers a ping while it walks, and a cancel ends the walk", async () => {
    let tip = "";
    const dir = caseRepo((d) => {
      // 300 KiB commits in delta chains 150 deep: the walk runs until the call's work budget is spent.
      tip = deltaChainHistory(join(d, ".git", "objects"), 300, 150, 300 * 1024);
      writeFileSync(join(d, ".git", "refs", "heads", "evil"), `${tip}\n`);
    });
    await withServer(async (server) => {
      const args = { name: "get_branch_context", arguments: { repo: dir, branch: "evil" } };
      // Answered in full when not cancelled: the budget stops the counts, the head is there.
      const whole = await call(server, "get_branch_context", { repo: dir, branch: "evil" });
      expect(JSON.stringify(whole.structured)).toContain('"counts_limited_by":"budget"');
      const walking = "walking";
      server.send({ jsonrpc: "2.0", id: walking, method: "tools/call", params: args });
      const pong = await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS });
      expect(pong.result).toEqual({});
      expect(server.responsesTo(walking)).toEqual([]);
      const reason = "walk cancelled by the test";
      server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: walking, reason } });
      // The walk sees the cancel at its next slice and stops; the server says why on stderr.
      await server.until(() => server.stderr().includes(reason));
      expect((await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS })).result).toEqual({});
      expect(server.responsesTo(walking)).toEqual([]);
    });
  });
});

describe("a long restack forecast (issue #44)", () => {
  test("the server answers a ping while it forecasts, and a cancel ends the forecast", async () => {
    const dir = caseRepo((d) => {
      // 2,000 files, each ~1 MB and changed on both sides: every merge inflates three blobs too large to cache, so
      // the forecast runs until the call's work budget is spent, while the commit walk is three commits long.
      const run = (args: string[], stdin?: string) => {
        const done = Bun.spawnSync(["git", ...args], {
          cwd: d,
          env: { ...gitEnv(world.repo.sandbox), GIT_INDEX_FILE: join(d, ".git", "forecast-index") },
          stdin: stdin === undefined ? undefined : Buffer.from(stdin),
        });
        if (done.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${done.stderr}`);
        return done.stdout.toString().trim();
      };
      const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${"x".repeat(40)}\n`);
      const blob = (first: string, last: string) => {
        const text = [first, ...lines.slice(1, -1), last].join("");
        writeFileSync(join(d, ".git", "blob"), text);
        return run(["hash-object", "-w", join(d, ".git", "blob")]);
      };
      const [base, ours, theirs] = [
        blob(lines[0] ?? "", lines.at(-1) ?? ""),
        blob("main\n", lines.at(-1) ?? ""),
        blob(lines[0] ?? "", "topic\n"),
      ];
      const commit = (content: string, parent: string) => {
        rmSync(join(d, ".git", "forecast-index"), { force: true });
        run(
          ["update-index", "--index-info"],
          Array.from({ length: 2_000 }, (_, i) => `100644 ${content}\tf${i}.txt\n`).join(""),
        );
        return run(["commit-tree", run(["write-tree"]), "-p", parent, "-m", content.slice(0, 7)]);
      };
      const fork = commit(base, "main");
      run(["update-ref", "refs/heads/main", commit(ours, fork)]);
      run(["update-ref", "refs/heads/feature/auth", commit(theirs, fork)]);
    });
    await withServer(async (server) => {
      const args = { name: "get_branch_context", arguments: { repo: dir, branch: "feature/auth" } };
      // Answered in full when not cancelled: the walk is exact, the forecast is stopped by the budget.
      const whole = await call(server, "get_branch_context", { repo: dir, branch: "feature/auth" });
      const reply = whole.structured as {
        branch: { behind?: number; counts_limited_by?: string };
        next_steps: Array<{ forecast?: unknown }>;
      };
      expect(reply.branch).toMatchObject({ ahead: 1, behind: 1 });
      expect(reply.branch.counts_limited_by).toBeUndefined();
      expect(reply.next_steps[0]?.forecast).toMatchObject({ result: "unknown", unknown: { reason: "budget" } });
      const forecasting = "forecasting";
      server.send({ jsonrpc: "2.0", id: forecasting, method: "tools/call", params: args });
      const pong = await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS });
      expect(pong.result).toEqual({});
      expect(server.responsesTo(forecasting)).toEqual([]);
      const reason = "forecast cancelled by the test";
      server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: forecasting, reason } });
      // The forecast sees the cancel at its next slice and stops; the server says why on stderr.
      await server.until(() => server.stderr().includes(reason));
      expect((await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS })).result).toEqual({});
      expect(server.responsesTo(forecasting)).toEqual([]);
    });
  });
});

/** The server with at most `limit` descriptors (soft and hard: the runtime may raise a soft one). */
const fdLimit = (limit: number) => ["sh", "-c", `ulimit -n ${limit} && exec "$@"`, "sh"];

describe("many packs and large ref files (issue #47.3, #47.4)", () => {
  test("3,000 one-commit packs under a 256-descriptor limit: exact counts, warnings capped, ping answered", async () => {
    let tip = "";
    const dir = caseRepo((d) => {
      const objects = join(d, ".git", "objects");
      const main = world.repo.git("-C", d, "rev-parse", "main");
      // Each pack open at once takes two descriptors: 6,000 where 256 are allowed.
      tip = packPerCommit(objects, 3000, main);
      writeFileSync(join(d, ".git", "refs", "heads", "evil"), `${tip}\n`);
      for (let i = 0; i < 40; i++) {
        const broken = join(objects, "pack", `pack-${String(i).padStart(40, "f")}`);
        writeFileSync(`${broken}.idx`, "not an index");
        writeFileSync(`${broken}.pack`, "not a pack");
      }
    });
    await withServer(
      async (server) => {
        const id = "packs";
        server.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_branch_context", arguments: { repo: dir, branch: "evil" } },
        });
        expect((await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS })).result).toEqual({});
        await server.until(() => server.responsesTo(id).length > 0);
        const { branch } = structuredOf(server, id);
        expect(branch).toMatchObject({ head: { sha: tip }, base: "main", ahead: 3000, behind: 0 });
        expect(branch.counts_limited_by).toBeUndefined();
        // 40 broken indexes: five named, the rest counted, nothing lost to the descriptor limit.
        expect(branch.commit_warnings).toHaveLength(6);
        expect(branch.commit_warnings?.at(-1)).toBe("35 more object files not read");
        expect(JSON.stringify(branch.commit_warnings)).not.toContain("EMFILE");
      },
      { wrapper: fdLimit(256) },
    );
  });

  test.skipIf(process.platform !== "linux")(
    "a 62 MB packed-refs of 900,000 remote refs: branches listed, the upstream found, memory bounded, ping answered",
    async () => {
      const dir = caseRepo((d) => {
        const tip = world.repo.git("-C", d, "rev-parse", "feature/auth");
        const lines = [`${tip} refs/remotes/origin/feature/auth`];
        for (let i = 0; i < 900_000; i++) lines.push(`${tip} refs/remotes/origin/topic-${String(i).padStart(6, "0")}`);
        lines.push(`${tip} refs/heads/packed-only`);
        lines.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : 1));
        writeFileSync(
          join(d, ".git", "packed-refs"),
          `# pack-refs with: peeled fully-peeled sorted \n${lines.join("\n")}\n`,
        );
      });
      await withServer(async (server) => {
        const id = "refs";
        server.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_branch_context", arguments: { repo: dir, branch: "feature/auth" } },
        });
        expect((await server.request("ping", {}, { timeoutMs: CALL_TIMEOUT_MS })).result).toEqual({});
        await server.until(() => server.responsesTo(id).length > 0);
        expect(structuredOf(server, id).branch.push).toEqual({
          remote_ref: "refs/remotes/origin/feature/auth",
          unpushed: 0,
          unpulled: 0,
        });
        const tree = await call(server, "get_branch_tree", { repo: dir });
        expect(tree.isError).toBe(false);
        expect(JSON.stringify(tree.structured)).toContain('"packed-only"');
        expect(JSON.stringify(tree.structured)).not.toContain("topic-");
        // Read as a map of every ref, the file took 520 MB; by bisection, a few windows of it.
        expect(peakRssMb(server.pid)).toBeLessThan(200);
      });
    },
  );
});

/** The most memory the process `pid` has held (Linux). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmHWM:\s+(\d+) kB$/m);
  return Number(line?.[1]) / 1024;
}

/** The structured reply to the request `id` that was sent without waiting. */
function structuredOf(server: RawServer, id: string): { branch: Branch } {
  return server.responsesTo(id)[0]?.result?.structuredContent as { branch: Branch };
}

type Branch = {
  head?: { sha: string };
  ahead?: number;
  counts_limited_by?: string;
  commit_warnings?: string[];
  push?: unknown;
};
