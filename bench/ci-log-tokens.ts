/**
 * What a failing job costs a model to read: `bun bench/ci-log-tokens.ts`. Serves each test runner's failing
 * output of test/support/actions-log.ts as an Actions job log from the fake GitHub, asks get_ci_log for it with
 * the default tail, and counts the reply's tokens with `@anthropic-ai/tokenizer`, and how many of them the tail
 * (`log`) holds. No network: the fake API and log host listen on 127.0.0.1.
 */
import { countTokens } from "@anthropic-ai/tokenizer";
import { callTool, makeContext, TOKEN } from "../test/github/helpers.ts";
import { RUNNER_OUTPUTS, RUNNER_STEPS, runnerLog, startLogHost } from "../test/support/actions-log.ts";
import { checkRunPayload, FakeGitHub } from "../test/support/fake-github.ts";

const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
const github = await FakeGitHub.start({ token: TOKEN });
const logHost = await startLogHost();
const rows: string[] = ["| runner | reply tokens | of which the tail |", "| --- | ---: | ---: |"];
try {
  for (const [runner, { command, output }] of Object.entries(RUNNER_OUTPUTS)) {
    github.repos.clear();
    github.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    const run = {
      ...checkRunPayload({ id: 101, name: runner, conclusion: "failure", headSha: SHA }),
      app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
      details_url: "https://github.com/octo/r/actions/runs/777/job/101",
    };
    github.repo("octo", "r").checkRuns.set(SHA, [run]);
    const log = logHost.serve("/logs/101", runnerLog(command, output));
    github.route("GET", "/repos/:owner/:repo/actions/jobs/:job", () => ({
      body: { id: 101, run_id: 777, name: runner, status: "completed", conclusion: "failure", steps: RUNNER_STEPS },
    }));
    github.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", () => ({
      status: 302,
      headers: { location: log },
    }));
    const reply = await callTool(
      "get_ci_log",
      { pr_number: 12, owner: "octo", repo: "r" },
      makeContext({ env: github.env() }).ctx,
    );
    if (!reply.ok) throw new Error(`${runner}: ${reply.error.message}`);
    const tail = (reply.value.checks as Array<{ log?: unknown }>)[0]?.log ?? [];
    const text = JSON.stringify({ status: "ok", data: reply.value });
    rows.push(`| ${runner} | ${countTokens(text)} | ${countTokens(JSON.stringify(tail))} |`);
  }
} finally {
  await github.stop();
  await logHost.stop();
}
console.log(rows.join("\n"));
