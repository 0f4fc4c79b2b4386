/**
 * The six-branch stack of test/support/stack-fixture.ts on a fake GitHub and a fake Jira Cloud
 * (both on 127.0.0.1, with `latencyMs` per request), a clone of it on `feature/auth-ui`, and the
 * environment that points a server there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeGitHub } from "../../test/support/fake-github.ts";
import { FakeJira, USERS } from "../../test/support/fake-jira.ts";
import { gitOrThrow } from "../../test/support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../../test/support/hermetic-env.ts";
import { OWNER, REPO, seedGitHub, seedJira, writeStack } from "../../test/support/stack-fixture.ts";

const TOKEN = "ghp_benchstacktoken00000000000000000000";

export interface StackWorld {
  github: FakeGitHub;
  jira: FakeJira;
  repo: string;
  home: HermeticHome;
  cleanup(): Promise<void>;
}

export async function makeStackWorld(latencyMs: number): Promise<StackWorld> {
  const github = await FakeGitHub.start({ token: TOKEN, latencyMs });
  seedGitHub(github);
  const jira = FakeJira.start({ deployment: "cloud", me: USERS.alice, latencyMs });
  seedJira(jira);
  const home = makeHermeticHome({
    GITHUB_API_URL: github.url,
    GH_TOKEN: TOKEN,
    JIRA_HOST: jira.url,
    JIRA_EMAIL: "alice@example.com",
    JIRA_API_TOKEN: "atatt-bench-stack-0000",
  });
  const root = mkdtempSync(join(tmpdir(), "twig-mcp-bench-stack-"));
  const repo = join(root, "shop");
  const git = (...args: string[]) => gitOrThrow(root, home.home, "-C", repo, ...args);
  gitOrThrow(root, home.home, "init", "-q", "-b", "main", repo);
  git("commit", "-q", "--allow-empty", "-m", "init");
  git("remote", "add", "origin", `git@github.com:${OWNER}/${REPO}.git`);
  writeStack(repo, git);
  git("checkout", "-q", "feature/auth-ui");
  return {
    github,
    jira,
    repo,
    home,
    async cleanup() {
      await github.stop();
      jira.stop();
      home.cleanup();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
