import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolError } from "../../src/core/errors.ts";
import { err, ok, type Result } from "../../src/core/result.ts";
import { jiraTools } from "../../src/tools/all.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { API_TOKEN, BASIC_AUTH, EMAIL, type JiraTestContext, jiraContext, never } from "./helpers.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

let fake: FakeJira;
let scratch: string;
const contexts: JiraTestContext[] = [];

beforeAll(() => {
  fake = FakeJira.start({ deployment: "server", expectedAuthorization: BASIC_AUTH });
  fake.addIssues(
    { key: "SHOP-123", summary: "Auth", wiki: "Log in *faster*", status: "In Progress", assignee: USERS.alice },
    { key: "SHOP-200", summary: "Billing", wiki: null },
  );
  scratch = mkdtempSync(join(tmpdir(), "twig-mcp-jira-repos-"));
});
afterAll(async () => {
  await fake.stop();
  rmSync(scratch, { recursive: true, force: true });
});
afterEach(() => {
  fake.requests.length = 0;
  for (const c of contexts.splice(0)) c.cleanup();
});

const gitEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

function git(cwd: string, ...args: string[]): void {
  const run = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
}

let repoCount = 0;
/** A repository on `branch` (unborn unless `commit`) with the shared fixture's state file. */
function repo(branch: string, options: { commit?: boolean; detach?: boolean; state?: unknown } = {}): string {
  const dir = join(scratch, `repo-${repoCount++}`);
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", branch);
  if (options.commit || options.detach) git(dir, "commit", "-q", "--allow-empty", "-m", "init");
  if (options.detach) git(dir, "checkout", "-q", "--detach");
  mkdirSync(join(dir, ".twig"));
  writeFileSync(join(dir, ".twig", "state.json"), twigJson(options.state ?? EXAMPLE_STATE));
  return dir;
}

function contextIn(dir: string | null): ServiceContext {
  const made = jiraContext({
    env: { JIRA_HOST: fake.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN },
    repo:
      dir === null
        ? err(
            toolError(
              "no_repo",
              "twig-mcp was started outside a git repository",
              "Run twig-mcp from within a git repository.",
            ),
          )
        : ok(dir),
  });
  contexts.push(made);
  return made.ctx;
}

const getJiraIssue = jiraTools.find((t) => t.name === "get_jira_issue") as ToolDefinition;
const call = (ctx: ServiceContext, args: Record<string, unknown> = {}) =>
  getJiraIssue.handler(args, ctx, { signal: never() }) as Promise<Result<Record<string, unknown>>>;

describe("get_jira_issue without issue_key", () => {
  test("uses the current branch's linked issue", async () => {
    const result = await call(contextIn(repo("feature/auth", { commit: true })));
    expect(result).toEqual(
      ok({
        key: "SHOP-123",
        summary: "Auth",
        description: "Log in **faster**",
        status: "In Progress",
        assignee: "Alice Example",
        url: `${fake.url}/browse/SHOP-123`,
        issue_type: "Story",
        priority: "Medium",
        labels: [],
        reporter: "Bob Builder",
        updated: "2025-06-03T14:22:07.481+0000",
      }),
    );
    expect(fake.apiRequests().map((r) => r.path)).toEqual(["/rest/api/2/issue/SHOP-123"]);
  });

  test("works on an unborn branch too", async () => {
    const result = await call(contextIn(repo("feature/billing")));
    expect(result.ok && result.value.key).toBe("SHOP-200");
  });

  test("an explicit key wins over the branch link", async () => {
    const result = await call(contextIn(repo("feature/auth")), { issue_key: "SHOP-200" });
    expect(result.ok && result.value.key).toBe("SHOP-200");
  });

  test("branch without a linked issue → not_found", async () => {
    const result = await call(contextIn(repo("feature/auth-ui")));
    expect(result).toEqual(
      err(
        toolError(
          "not_found",
          "Branch 'feature/auth-ui' has no linked Jira issue",
          "Provide an explicit issue_key parameter.",
        ),
      ),
    );
    expect(fake.apiRequests()).toHaveLength(0);
  });

  test("untracked branch → not_found", async () => {
    const result = await call(contextIn(repo("hotfix/typo")));
    expect(!result.ok && result.error.message).toBe("Branch 'hotfix/typo' has no linked Jira issue");
  });

  test("detached HEAD → invalid_params saying so (not a branch named HEAD)", async () => {
    const result = await call(contextIn(repo("feature/auth", { detach: true })));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_params");
    expect(result.error.message).toMatch(/^No issue_key provided and HEAD is detached \(at [0-9a-f]{12}\)/);
    expect(result.error.hint).toBe("Provide an explicit issue_key parameter.");
  });

  test("no repository → no_repo, hint mentions issue_key", async () => {
    const result = await call(contextIn(null));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("no_repo");
    expect(result.error.hint).toStartWith("Provide an explicit issue_key parameter.");
  });

  test("a malformed link → invalid_params; a lower-case link is normalised", async () => {
    const state = structuredClone(EXAMPLE_STATE) as typeof EXAMPLE_STATE;
    (state.branches["feature/auth"] as { jira_issue: string | null }).jira_issue = "not a key";
    (state.branches["feature/billing"] as { jira_issue: string | null }).jira_issue = "shop-200";
    const bad = await call(contextIn(repo("feature/auth", { state })));
    expect(!bad.ok && bad.error.code).toBe("invalid_params");
    expect(!bad.ok && bad.error.message).toBe(
      `Branch 'feature/auth' is linked to "not a key", which is not a Jira issue key`,
    );
    const lower = await call(contextIn(repo("feature/billing", { state })));
    expect(lower.ok && lower.value.key).toBe("SHOP-200");
  });

  test("corrupt state file → no_twig_state", async () => {
    const dir = repo("feature/auth");
    writeFileSync(join(dir, ".twig", "state.json"), "{not json");
    const result = await call(contextIn(dir));
    expect(!result.ok && result.error.code).toBe("no_twig_state");
  });

  test("credentials are checked before the repository", async () => {
    const made = jiraContext({ env: { JIRA_HOST: fake.url }, repo: ok(repo("feature/auth-ui")) });
    contexts.push(made);
    const result = await call(made.ctx);
    expect(!result.ok && result.error.code).toBe("credentials_missing");
  });
});
