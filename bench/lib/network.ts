/**
 * The network tools against the test suite's fake GitHub and Jira on 127.0.0.1, each with a fixed
 * latency per request, so wall time reads in round trips: the number that matters on a real link.
 */
import { checkRunPayload, commitStatusPayload, FakeGitHub, reviewPayload } from "../../test/support/fake-github.ts";
import { FakeJira, USERS } from "../../test/support/fake-jira.ts";
import { median } from "./stats.ts";
import { StdioServer } from "./stdio-rpc.ts";

const TOKEN = "ghp_bench_fake_token_0123456789abcdef";
const JIRA_EMAIL = "alice@example.com";
const JIRA_TOKEN = "atatt-bench-fake-token";
const HEAD_SHA = "c".repeat(40);

export interface CallFigures {
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
  /** How many of those the server answered `304 Not Modified` (GitHub's ETags). */
  repeatNotModified: number;
  /** Most requests in flight at once (`null`: the fake does not count them). */
  maxConcurrency: number | null;
}

export interface NetworkFigures {
  latencyMs: number;
  github: CallFigures;
  jira: CallFigures;
}

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
  let server = null as StdioServer | null;
  try {
    github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", headSha: HEAD_SHA });
    const data = github.repo("octo", "shop");
    data.reviews.set(43, [
      reviewPayload({ id: 1, login: "alice", state: "APPROVED" }),
      reviewPayload({ id: 2, login: "bob", state: "COMMENTED" }),
    ]);
    data.checkRuns.set(HEAD_SHA, [
      checkRunPayload({ id: 1, name: "build" }),
      checkRunPayload({ id: 2, name: "test" }),
      checkRunPayload({ id: 3, name: "e2e", status: "in_progress" }),
    ]);
    data.statuses.set(HEAD_SHA, [commitStatusPayload({ context: "ci/legacy", state: "success" })]);
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

    const spawn = async () => {
      const started = StdioServer.spawn("twig-mcp", [options.binary], {
        cwd: options.cwd,
        env: {
          ...options.env,
          GITHUB_API_URL: github.url,
          GH_TOKEN: TOKEN,
          JIRA_HOST: jira.url,
          JIRA_EMAIL,
          JIRA_API_TOKEN: JIRA_TOKEN,
        },
        keepStderr: true,
      });
      server = started;
      await started.initialize();
      // As every client does before its first call.
      await started.request("tools/list");
      return started;
    };
    const githubCall = { tool: "get_pr_status", args: { owner: "octo", repo: "shop", pr_number: 43 } };
    const jiraCall = { tool: "list_jira_issues", args: { project: "SHOP" } };
    const githubRequests = () => ({
      count: github.requests.length,
      notModified: github.requests.filter((r) => r.status === 304).length,
    });
    const jiraRequests = () => ({ count: jira.requests.length, notModified: 0 });
    const timed = async (
      running: StdioServer,
      call: { tool: string; args: Record<string, unknown> },
      requests: () => { count: number; notModified: number },
    ) => {
      const before = requests();
      const started = performance.now();
      const reply = await running.callTool(call.tool, call.args);
      const after = requests();
      return {
        ms: reply.at - started,
        requests: after.count - before.count,
        notModified: after.notModified - before.notModified,
      };
    };

    // A session's first call is one sample per process: several fresh sessions give its median.
    const firsts = {
      github: [] as Array<Awaited<ReturnType<typeof timed>>>,
      jira: [] as Array<Awaited<ReturnType<typeof timed>>>,
    };
    for (let i = 0; i < options.sessions; i++) {
      const running = await spawn();
      firsts.github.push(await timed(running, githubCall, githubRequests));
      firsts.jira.push(await timed(running, jiraCall, jiraRequests));
      if (i < options.sessions - 1) {
        await running.close();
        server = null;
      }
    }
    const running = server as StdioServer;
    const repeated = async (
      call: { tool: string; args: Record<string, unknown> },
      requests: () => { count: number; notModified: number },
      first: Array<Awaited<ReturnType<typeof timed>>>,
      concurrency: () => number | null,
    ): Promise<CallFigures> => {
      const repeats: number[] = [];
      let last = first[first.length - 1] as Awaited<ReturnType<typeof timed>>;
      for (let i = 0; i < options.repeats; i++) {
        last = await timed(running, call, requests);
        repeats.push(last.ms);
      }
      return {
        tool: call.tool,
        firstMs: median(first.map((f) => f.ms)),
        firstRequests: first[0]?.requests ?? 0,
        firstSessions: first.length,
        repeatMs: median(repeats),
        repeatRequests: last.requests,
        repeatNotModified: last.notModified,
        maxConcurrency: concurrency(),
      };
    };
    const githubFigures = await repeated(githubCall, githubRequests, firsts.github, () => github.maxConcurrency);
    const jiraFigures = await repeated(jiraCall, jiraRequests, firsts.jira, () => null);
    return { latencyMs: options.latencyMs, github: githubFigures, jira: jiraFigures };
  } finally {
    await server?.close();
    await github.stop();
    await jira.stop();
  }
}
