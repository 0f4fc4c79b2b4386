import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "@anthropic-ai/tokenizer";
import { FakeGitHub } from "../support/fake-github.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { gitOrThrow } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { OWNER, REPO, STACK_BRANCHES, seedGitHub, seedJira, writeStack } from "../support/stack-fixture.ts";

/**
 * get_stack_status through the compiled binary: a six-branch stack on a fake GitHub and Jira Cloud. Data Center, no
 * credentials and `--disable` are covered in process (test/tools/stack-status.test.ts).
 */

setDefaultTimeout(30_000);

const TOKEN = "ghp_stackstatustoken000000000000000000";
const EMAIL = "alice@example.com";
const API_TOKEN = "atatt-stack-status-token-77";

interface Entry {
  branch: string;
  depth: number;
  pr?: { number: number; state?: string; review?: string; ci?: string; found_by: string; error?: { code: string } };
  drift?: string[];
  jira?: { key: string; status?: string };
  action?: { kind: string; onto?: string; retarget?: number };
}
interface Doc {
  scope: string;
  summary: string;
  lines: string[];
  branches: Entry[];
  github?: { status: string; error?: { code: string; hint?: string } };
  jira?: { status: string };
  next_steps: Array<{ branch: string; what: string; why: string; command: string }>;
}

let root: string;
let github: FakeGitHub;
let cloud: FakeJira;
const homes: HermeticHome[] = [];
let full: RunningServer;

async function stackStatus(server: RunningServer, args: Record<string, unknown> = {}) {
  const result = await server.call("get_stack_status", args);
  expect(result.envelope.status).toBe("ok");
  return { doc: result.envelope.data as Doc, text: result.text };
}

beforeAll(async () => {
  github = await FakeGitHub.start({ token: TOKEN });
  seedGitHub(github);
  cloud = FakeJira.start({ deployment: "cloud", me: USERS.alice });
  seedJira(cloud);

  root = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-stack-status-")));
  const repo = join(root, "shop");
  const home = (env: Record<string, string>) => {
    const made = makeHermeticHome({ TWIG_MCP_HTTP_TIMEOUT_MS: "1500", ...env });
    homes.push(made);
    return made;
  };
  const git = (...args: string[]) => gitOrThrow(root, homes[0]?.home ?? root, "-C", repo, ...args);
  const githubEnv = { GITHUB_API_URL: github.url, GH_TOKEN: TOKEN };
  const jiraEnv = (jira: FakeJira) => ({ JIRA_HOST: jira.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN });
  const fullHome = home({ ...githubEnv, ...jiraEnv(cloud) });

  gitOrThrow(root, fullHome.home, "init", "-q", "-b", "main", repo);
  git("commit", "-q", "--allow-empty", "-m", "init");
  git("remote", "add", "origin", `git@github.com:${OWNER}/${REPO}.git`);
  writeStack(repo, git);
  git("checkout", "-q", "feature/auth-ui");

  full = await startServer({ cwd: repo, env: fullHome.env });
}, 60_000);

afterAll(async () => {
  await full?.close();
  await github?.stop();
  cloud?.stop();
  for (const home of homes) home.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("get_stack_status through the binary", () => {
  test("GitHub and Jira Cloud: the whole stack with its reasons, in two round trips and one Jira request", async () => {
    github.reset();
    cloud.requests.length = 0;
    // Every answer held: each round's requests all arrive before any of them is answered.
    github.holdEveryAnswer = true;
    const call = stackStatus(full);
    await github.awaitRequestCount(6);
    github.release();
    // Round two: three lists per PR, one GraphQL request counting every PR's threads, and main's head checks (the
    // other bases are heads of PRs on the page, already listed).
    await github.awaitRequestCount(27);
    github.holdEveryAnswer = false;
    github.release();
    const { doc, text } = await call;
    expect(github.requests).toHaveLength(27);
    expect(doc.branches.map((entry) => entry.branch)).toEqual([...STACK_BRANCHES]);
    expect(doc.summary).toBe("6 branches, 6 PRs: 2 ready, 2 blocked, 1 draft, 1 merged");
    const oauth = doc.branches[1] as Entry;
    expect(oauth).toMatchObject({
      pr: { number: 102, review: "changes_requested", ci: "failing" },
      drift: ["retarget"],
      jira: { key: "SHOP-2", status: "In Progress" },
    });
    // The excerpts are the entry's; the line names who and what.
    expect(doc.lines[1]).toContain("changes requested by carol · CI failing: pytest");
    expect(doc.branches[4]?.pr).toMatchObject({ number: 105, found_by: "head_ref" });
    expect(cloud.requests.filter((r) => r.path === "/rest/api/3/issue/bulkfetch")).toHaveLength(1);
    // What to do next, parents first: the merged PR's branch cleaned up (not deleted: its PR head is not in the
    // clone), its child moved onto main and retargeted.
    expect(doc.branches[0]?.action).toMatchObject({ kind: "clean_up" });
    expect(oauth.action).toMatchObject({ kind: "move", onto: "main", retarget: 102 });
    expect(doc.next_steps[0]?.command).toContain("gh pr edit 102 --base main");
    // Well under 2,000 tokens as the model reads it, actions and steps included.
    expect(countTokens(text)).toBeLessThan(2000);
  });
});
