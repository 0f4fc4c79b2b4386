/**
 * The network tools against the test suite's fake GitHub and Jira on 127.0.0.1, each with a fixed
 * latency per request, so wall time reads in round trips: the number that matters on a real link.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRunPayload, commitStatusPayload, FakeGitHub, reviewPayload } from "../../test/support/fake-github.ts";
import { FakeJira, USERS } from "../../test/support/fake-jira.ts";
import { median } from "./stats.ts";
import { StdioServer } from "./stdio-rpc.ts";

const TOKEN = "ghp_bench_fake_token_0123456789abcdef";
const JIRA_EMAIL = "alice@example.com";
const JIRA_TOKEN = "atatt-bench-fake-token";
const HEAD_SHA = "c".repeat(40);

export interface CallFigures {
  /** What was asked, as the report names it. */
  label: string;
  tool: string;
  /** A session's first call (median over fresh sessions): connection set-up and first-use work included. */
  firstMs: number;
  /** How many fresh sessions the first call was measured in. */
  firstSessions: number;
  firstRequests: number;
  /** Median of the repeated calls. */
  repeatMs: number;
  /** HTTP requests per repeated call (the last one). */
  repeatRequests: number;
  /** How many of those the server answered `304 Not Modified` (GitHub's ETags; `null` for Jira). */
  repeatNotModified: number | null;
  /** Most requests in flight at once (`null`: the fake does not count them). */
  maxConcurrency: number | null;
  /** The same, over the first calls only: how many rounds a session's first call takes. */
  firstConcurrency: number | null;
}

export interface NetworkFigures {
  latencyMs: number;
  /** get_pr_status: by owner/repo/number, and from the PR's pushed branch in a clone (no arguments). */
  github: CallFigures[];
  jira: CallFigures;
}

/** The PR the clone's branch is pushed to; its head is the clone's commit. */
const PUSHED_PR = 44;
const PUSHED_BRANCH = "feature/pushed";

export async function measureNetwork(options: {
  binary: string;
  cwd: string;
  env: Record<string, string>;
  latencyMs: number;
  repeats: number;
  /** Fresh server processes whose first call is timed. */
  sessions: number;
}): Promise<NetworkFigures> {
  const github = await FakeGitHub.start({ latencyMs: options.latencyMs, token: TOKEN });
  const jira = FakeJira.start({ deployment: "cloud", latencyMs: options.latencyMs, me: USERS.alice });
  const clone = makePushedClone(options.env);
  try {
    const data = github.repo("octo", "shop");
    const pull = (number: number, head: string, sha: string) => {
      github.addPull({ owner: "octo", repo: "shop", number, head, headSha: sha });
      data.reviews.set(number, [
        reviewPayload({ id: 1, login: "alice", state: "APPROVED" }),
        reviewPayload({ id: 2, login: "bob", state: "COMMENTED" }),
      ]);
      data.checkRuns.set(sha, [
        checkRunPayload({ id: 1, name: "build" }),
        checkRunPayload({ id: 2, name: "test" }),
        checkRunPayload({ id: 3, name: "e2e", status: "in_progress" }),
      ]);
      data.statuses.set(sha, [commitStatusPayload({ context: "ci/legacy", state: "success" })]);
    };
    pull(43, "feature/auth-ui", HEAD_SHA);
    pull(PUSHED_PR, PUSHED_BRANCH, clone.head);
    for (let n = 1; n <= 30; n++) {
      jira.addIssues({
        key: `SHOP-${n}`,
        summary: `Issue number ${n}`,
        adf: null,
        status: n % 3 === 0 ? "Done" : "In Progress",
        assignee: USERS.alice,
        updated: `2025-06-${String((n % 28) + 1).padStart(2, "0")}T10:00:00.000+0000`,
      });
    }

    const env = {
      ...options.env,
      GITHUB_API_URL: github.url,
      GH_TOKEN: TOKEN,
      JIRA_HOST: jira.url,
      JIRA_EMAIL,
      JIRA_API_TOKEN: JIRA_TOKEN,
    };
    const githubRequests = () => ({
      count: github.requests.length,
      notModified: github.requests.filter((r) => r.status === 304).length as number | null,
    });
    const jiraRequests = () => ({ count: jira.requests.length, notModified: null as number | null });
    const measure = (
      label: string,
      cwd: string,
      call: { tool: string; args: Record<string, unknown> },
      requests: () => { count: number; notModified: number | null },
      concurrency: () => number | null,
    ) => measureCall({ ...options, cwd, env, label, call, requests, concurrency, reset: () => github.reset() });

    return {
      latencyMs: options.latencyMs,
      github: [
        await measure(
          "get_pr_status (owner, repo, pr_number)",
          options.cwd,
          { tool: "get_pr_status", args: { owner: "octo", repo: "shop", pr_number: 43 } },
          githubRequests,
          () => github.maxConcurrency,
        ),
        await measure(
          "get_pr_status (no arguments, on the PR's pushed branch)",
          clone.root,
          { tool: "get_pr_status", args: {} },
          githubRequests,
          () => github.maxConcurrency,
        ),
      ],
      jira: await measure(
        "list_jira_issues (project)",
        options.cwd,
        { tool: "list_jira_issues", args: { project: "SHOP" } },
        jiraRequests,
        () => null,
      ),
    };
  } finally {
    await github.stop();
    await jira.stop();
    rmSync(clone.root, { recursive: true, force: true });
  }
}

/**
 * One call's first-call time, median over fresh sessions (each after `initialize` and `tools/list`,
 * as every client does), then its repeated calls in the last session.
 */
async function measureCall(options: {
  binary: string;
  cwd: string;
  env: Record<string, string>;
  repeats: number;
  sessions: number;
  label: string;
  call: { tool: string; args: Record<string, unknown> };
  requests: () => { count: number; notModified: number | null };
  concurrency: () => number | null;
  /** Clears the fake's counters, so `concurrency` reads this call's requests only. */
  reset: () => void;
}): Promise<CallFigures> {
  const timed = async (running: StdioServer) => {
    const before = options.requests();
    const started = performance.now();
    const reply = await running.callTool(options.call.tool, options.call.args);
    const after = options.requests();
    return {
      ms: reply.at - started,
      requests: after.count - before.count,
      notModified: after.notModified === null ? null : after.notModified - (before.notModified ?? 0),
    };
  };
  options.reset();
  const firsts: Array<Awaited<ReturnType<typeof timed>>> = [];
  let running: StdioServer | null = null;
  try {
    for (let i = 0; i < options.sessions; i++) {
      await running?.close();
      running = StdioServer.spawn("twig-mcp", [options.binary], {
        cwd: options.cwd,
        env: options.env,
        keepStderr: true,
      });
      await running.initialize();
      await running.request("tools/list");
      firsts.push(await timed(running));
    }
    const firstConcurrency = options.concurrency();
    const session = running as StdioServer;
    const repeats: number[] = [];
    let last = firsts[firsts.length - 1] as Awaited<ReturnType<typeof timed>>;
    for (let i = 0; i < options.repeats; i++) {
      last = await timed(session);
      repeats.push(last.ms);
    }
    return {
      label: options.label,
      tool: options.call.tool,
      firstMs: median(firsts.map((f) => f.ms)),
      firstRequests: firsts[0]?.requests ?? 0,
      firstSessions: firsts.length,
      repeatMs: median(repeats),
      repeatRequests: last.requests,
      repeatNotModified: last.notModified,
      maxConcurrency: options.concurrency(),
      firstConcurrency,
    };
  } finally {
    await running?.close();
  }
}

/**
 * A clone of octo/shop on `feature/pushed`, which twig links to PR 44 and which is pushed: its
 * remote-tracking ref is its own commit, as after `git push`.
 */
function makePushedClone(env: Record<string, string>): { root: string; head: string } {
  const root = mkdtempSync(join(tmpdir(), "twig-mcp-bench-clone-"));
  const git = (...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: root, env: { ...env, GIT_CONFIG_NOSYSTEM: "1" } });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
    return result.stdout.toString().trim();
  };
  git("init", "-q", "-b", PUSHED_BRANCH);
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "--allow-empty", "-m", "work");
  git("remote", "add", "origin", "https://github.com/octo/shop.git");
  const head = git("rev-parse", "HEAD");
  git("update-ref", `refs/remotes/origin/${PUSHED_BRANCH}`, head);
  mkdirSync(join(root, ".twig"));
  writeFileSync(
    join(root, ".twig", "state.json"),
    JSON.stringify({
      version: 1,
      updated_at: "2025-06-03T14:22:07Z",
      branches: {
        [PUSHED_BRANCH]: {
          branch: PUSHED_BRANCH,
          jira_issue: null,
          github_pr: PUSHED_PR,
          created_at: "2025-06-01T10:00:00+00:00",
        },
      },
      dependencies: [],
      root_branches: [],
      worktrees: [],
    }),
  );
  return { root, head };
}
