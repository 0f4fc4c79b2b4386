/**
 * Read-only, end to end: the whole tool, prompt, resource and completion surface of the compiled
 * binary runs against a repository and a HOME (with twig's registry, `.netrc`, gh's hosts.yml,
 * TMPDIR and the working directory all inside) whose every entry is recorded — type, mode, size,
 * mtime, ctime, content hash, link target — before and after. Nothing changes and nothing is
 * created. Where strace can run, the session is also traced: no file is opened for writing and no
 * call that changes the file system is made.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { allTools } from "../../src/tools/all.ts";
import { checkRunPayload, reviewPayload } from "../support/fake-github.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { RawServer } from "./support/raw-server.ts";
import { readTrace, straceWrapper, writes } from "./support/strace.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const TOKEN = "ghp_readOnlyTOKEN00000000000000000000";

let world: World;
const github = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
let jira: FakeJira;
let traceDir: string;

beforeAll(async () => {
  const sha = "a".repeat(40);
  github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", headSha: sha });
  github.addPull({ owner: "octo", repo: "shop", number: 42, head: "feature/auth" });
  github.repo("octo", "shop").reviews.set(43, [reviewPayload({ login: "alice", state: "APPROVED" })]);
  github.repo("octo", "shop").checkRuns.set(sha, [checkRunPayload({ name: "build" })]);
  jira = FakeJira.start({ deployment: "cloud", projects: ["SHOP"] });
  jira.addIssues(
    { key: "SHOP-123", summary: "Checkout", status: "In Progress", assignee: USERS.alice },
    { key: "SHOP-200", summary: "Billing", status: "To Do" },
  );
  world = makeWorld({
    GITHUB_API_URL: github.url,
    JIRA_HOST: jira.url,
    JIRA_EMAIL: "alice@example.com",
    JIRA_API_TOKEN: "jira-read-only-token",
  });
  world.env.TMPDIR = join(world.repo.sandbox, "tmp");
  mkdirSync(world.env.TMPDIR);
  writeFileSync(join(world.home, ".netrc"), `machine github.com login me password ${TOKEN}\n`, { mode: 0o600 });
  mkdirSync(join(world.home, ".config", "gh"), { recursive: true });
  writeFileSync(join(world.home, ".config", "gh", "hosts.yml"), "github.com:\n    user: me\n");
  world.repo.git("worktree", "add", "-q", join(world.repo.sandbox, "wt"), "feature/billing");
  traceDir = mkdtempSync(join(tmpdir(), "twig-mcp-trace-"));
});

afterAll(async () => {
  await jira?.stop();
  world?.cleanup();
  rmSync(traceDir, { recursive: true, force: true });
});

type Snapshot = Map<string, string>;

/** Every entry under `root`, symlinks not followed, with what would show any change to it. */
function snapshot(root: string): Snapshot {
  const entries: Snapshot = new Map();
  const visit = (path: string) => {
    const info = lstatSync(path, { bigint: true });
    let detail = `mode=${info.mode} uid=${info.uid} mtime=${info.mtimeNs} ctime=${info.ctimeNs}`;
    if (info.isFile()) {
      detail += ` size=${info.size} sha256=${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    } else if (info.isSymbolicLink()) {
      detail += ` -> ${readlinkSync(path)}`;
    } else if (info.isDirectory()) {
      const names = readdirSync(path).sort();
      detail += ` entries=${names.join("/")}`;
      for (const name of names) visit(join(path, name));
    }
    entries.set(path, detail);
  };
  visit(root);
  return entries;
}

function backdate(root: string): void {
  const past = new Date("2020-01-01T00:00:00Z");
  const visit = (path: string) => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return;
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    utimesSync(path, past, past);
  };
  visit(root);
}

function differences(before: Snapshot, after: Snapshot): string[] {
  const changed: string[] = [];
  for (const [path, detail] of after) {
    const was = before.get(path);
    if (was === undefined) changed.push(`created ${path}`);
    else if (was !== detail) changed.push(`changed ${path}: ${was} => ${detail}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changed.push(`removed ${path}`);
  return changed;
}

test("the full surface changes no file and creates none", async () => {
  // Every timestamp moved into the past, so a rewrite with identical content still shows (file
  // times are coarser than the time these tests take).
  backdate(world.repo.sandbox);
  const before = snapshot(world.repo.sandbox);
  expect(before.size).toBeGreaterThan(50);
  const trace = straceWrapper(traceDir);
  const server = await RawServer.start({ cwd: world.root, env: world.env, args: ["-vvv"], wrapper: trace?.wrapper });
  server.onServerRequest = (method) => {
    if (method === "roots/list") return { roots: [{ uri: pathToFileURL(world.repo.sandbox).href, name: "sandbox" }] };
    throw new Error("unsupported");
  };
  try {
    await server.initialize({ capabilities: { roots: { listChanged: true } } });
    await server.request("logging/setLevel", { level: "debug" });

    const { tools } = (await server.request("tools/list")).result as { tools: Array<{ name: string }> };
    const argsFor: Record<string, Array<Record<string, unknown>>> = {
      get_branch_metadata: [{ branch: "feature/auth" }, { branch: "nope" }, { branch: "../x" }],
      get_branch_stack: [{}, { branch: "feature/auth-ui" }, { branch: "main", repo: "shop" }],
      get_branch_tree: [{}, { branch: "feature/auth" }],
      get_pull_request: [{}, { pr_number: 42 }, { pr_number: 999 }, { owner: "octo", repo: "shop", pr_number: 43 }],
      get_pr_status: [{}, { pr_number: 43 }],
      list_pull_requests: [{}, { state: "all", head: "feature/auth" }],
      get_jira_issue: [{}, { issue_key: "SHOP-123" }, { issue_key: "SHOP-999" }],
      list_jira_issues: [
        { project: "SHOP" },
        { project: "SHOP", status: "In Progress", assignee: "me" },
        { project: "NOPE" },
      ],
      get_worktrees: [{}, { repo: join(world.repo.sandbox, "wt") }],
    };
    expect(tools.map(({ name }) => name).sort()).toEqual(allTools.map(({ name }) => name).sort());
    for (const { name } of tools) {
      for (const args of argsFor[name] ?? [{}]) {
        const response = await server.request("tools/call", { name, arguments: args });
        expect(response.result).toBeDefined();
      }
    }

    const { prompts } = (await server.request("prompts/list")).result as {
      prompts: Array<{ name: string; arguments?: Array<{ name: string }> }>;
    };
    const promptArgs: Record<string, string> = {
      branch: "feature/auth",
      issue_key: "SHOP-123",
      pr_number: "43",
      repo: "shop",
    };
    for (const prompt of prompts) {
      await server.request("prompts/get", { name: prompt.name, arguments: {} });
      const all = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, promptArgs[a.name] ?? "x"]));
      const got = await server.request("prompts/get", { name: prompt.name, arguments: all });
      expect(got.result).toBeDefined();
      for (const argument of prompt.arguments ?? []) {
        await server.request("completion/complete", {
          ref: { type: "ref/prompt", name: prompt.name },
          argument: { name: argument.name, value: "" },
        });
      }
    }

    const { resources } = (await server.request("resources/list")).result as { resources: Array<{ uri: string }> };
    const { resourceTemplates } = (await server.request("resources/templates/list")).result as {
      resourceTemplates: Array<{ uriTemplate: string }>;
    };
    const uris = [
      ...resources.map((r) => r.uri),
      ...resourceTemplates.map((t) => t.uriTemplate.replace("{name}", "feature%2Fauth")),
      "twig://repo/tree?repo=shop",
      "twig://branch/feature%2Fauth-ui/context",
    ];
    for (const uri of uris) {
      expect((await server.request("resources/read", { uri })).result).toBeDefined();
      await server.request("resources/subscribe", { uri });
    }
    await server.request("completion/complete", {
      ref: { type: "ref/resource", uri: resourceTemplates[0]?.uriTemplate },
      argument: { name: "name", value: "feat" },
    });
    for (const uri of uris) await server.request("resources/unsubscribe", { uri });
    await server.request("ping");
    expect(github.requests.length).toBeGreaterThan(5);
    expect(jira.requests.length).toBeGreaterThan(3);
  } finally {
    expect(await server.close()).toBe(0);
  }
  expect(server.stdoutProblems()).toEqual([]);
  expect(differences(before, snapshot(world.repo.sandbox))).toEqual([]);
  if (trace) {
    const calls = readTrace(trace.output);
    expect(calls.length).toBeGreaterThan(100);
    expect(writes(calls).map((call) => call.line)).toEqual([]);
  }
}, 60_000);
