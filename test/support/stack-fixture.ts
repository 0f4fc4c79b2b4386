/**
 * A six-branch twig stack on `acme/shop` with every case get_stack_status reports, seeded into a
 * fake GitHub and a fake Jira (payloads from GitHub's OpenAPI examples, varied):
 *
 *   main
 *   ├── feature/auth           #101 merged                                       SHOP-1 Done
 *   │   ├── feature/auth-oauth #102 open, base still feature/auth (retarget),    SHOP-2 In Progress
 *   │   │   │                  changes requested by carol, pytest failing with output; native stack 7 @2
 *   │   │   ├── feature/auth-docs  #104 open, base main (≠ twig parent), review required (dave),
 *   │   │   │                      docs check failing; native stack 7 @1 (below its parent: order differs)
 *   │   │   └── feature/auth-ui    #103 draft, checks pending; native stack 7 @3   SHOP-3 In Review
 *   │   │       └── feature/auth-tests  not linked by twig: #105 found by head ref, approved, green
 *   │   └── feature/auth-session #108 open, approved, green, base main (retargeted already)
 *   └── feature/billing        #106 open, approved, green (another stack)       SHOP-4 To Do
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkRunPayload, commitStatusPayload, type FakeGitHub, reviewPayload } from "./fake-github.ts";
import type { FakeIssue, FakeJira } from "./fake-jira.ts";

export const OWNER = "acme";
export const REPO = "shop";

export const STACK_BRANCHES = [
  "feature/auth",
  "feature/auth-oauth",
  "feature/auth-docs",
  "feature/auth-ui",
  "feature/auth-tests",
  "feature/auth-session",
] as const;

const LINKS: Record<string, { pr: number | null; jira: string | null; parent: string }> = {
  "feature/auth": { pr: 101, jira: "SHOP-1", parent: "main" },
  "feature/auth-oauth": { pr: 102, jira: "SHOP-2", parent: "feature/auth" },
  "feature/auth-docs": { pr: 104, jira: null, parent: "feature/auth-oauth" },
  "feature/auth-ui": { pr: 103, jira: "SHOP-3", parent: "feature/auth-oauth" },
  "feature/auth-tests": { pr: null, jira: null, parent: "feature/auth-ui" },
  "feature/auth-session": { pr: 108, jira: null, parent: "feature/auth" },
  "feature/billing": { pr: 106, jira: "SHOP-4", parent: "main" },
};

export const REVIEW_BODY =
  "Token refresh isn't handled when the access token expires mid-request; the retry in session.py replays the old token.";

/** twig's `.twig/state.json` for the stack. */
export function stackState(): unknown {
  const at = "2025-06-01T10:00:00+00:00";
  return {
    version: 1,
    updated_at: "2025-06-03T14:22:07Z",
    worktrees: [],
    branches: Object.fromEntries(
      Object.entries(LINKS).map(([branch, link]) => [
        branch,
        { branch, jira_issue: link.jira, github_pr: link.pr, created_at: at },
      ]),
    ),
    dependencies: Object.entries(LINKS).map(([child, link], i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      child,
      parent: link.parent,
      created_at: at,
    })),
    root_branches: [{ id: "00000000-0000-4000-8000-999999999999", branch: "main", is_default: true, created_at: at }],
  };
}

/** Writes the state into a work tree and makes every branch there (`git` runs in it). */
export function writeStack(workTree: string, git: (...args: string[]) => unknown): void {
  for (const branch of Object.keys(LINKS)) git("branch", branch);
  mkdirSync(join(workTree, ".twig"), { recursive: true });
  writeFileSync(join(workTree, ".twig", "state.json"), JSON.stringify(stackState(), null, 2));
}

const sha = (n: number) => String(n).repeat(40).slice(0, 40);
const nativeStack = (position: number) => ({
  id: 9876543,
  number: 7,
  size: 4,
  position,
  base: { ref: "main", sha: sha(9) },
});

/** The PRs, reviews, check runs and statuses of the stack on the fake GitHub. */
export function seedGitHub(github: FakeGitHub): void {
  const pull = (number: number, head: string, base: string, more: Record<string, unknown> = {}) => {
    const {
      requestedReviewers = [],
      draft,
      merged,
      stack,
    } = more as {
      requestedReviewers?: string[];
      draft?: boolean;
      merged?: boolean;
      stack?: number;
    };
    const payload = github.addPull({
      owner: OWNER,
      repo: REPO,
      number,
      head,
      base,
      headSha: sha(number % 10),
      requestedReviewers,
      ...(draft === undefined ? {} : { draft }),
      ...(merged === undefined ? {} : { merged }),
      body: "A long PR body that get_stack_status never repeats. ".repeat(40),
    });
    if (stack !== undefined) payload.stack = nativeStack(stack);
  };
  pull(101, "feature/auth", "main", { merged: true });
  pull(102, "feature/auth-oauth", "feature/auth", { stack: 2 });
  pull(103, "feature/auth-ui", "feature/auth-oauth", { draft: true, stack: 3 });
  pull(104, "feature/auth-docs", "main", { requestedReviewers: ["dave"], stack: 1 });
  pull(105, "feature/auth-tests", "feature/auth-ui");
  pull(106, "feature/billing", "main");
  pull(108, "feature/auth-session", "main");

  const data = github.repo(OWNER, REPO);
  const approved = [reviewPayload({ id: 1, login: "alice", state: "APPROVED" })];
  for (const n of [101, 105, 106, 108]) data.reviews.set(n, approved);
  data.reviews.set(102, [
    { ...reviewPayload({ id: 2, login: "carol", state: "CHANGES_REQUESTED" }), body: REVIEW_BODY },
    { ...reviewPayload({ id: 3, login: "alice", state: "COMMENTED" }), body: "Looks close." },
  ]);
  const green = [checkRunPayload({ id: 10, name: "pytest" }), checkRunPayload({ id: 11, name: "lint" })];
  for (const n of [101, 105, 106, 108]) data.checkRuns.set(sha(n % 10), green);
  data.checkRuns.set(sha(2), [
    {
      ...checkRunPayload({ id: 12, name: "pytest", conclusion: "failure" }),
      output: {
        title: "2 failed, 148 passed",
        summary: "FAILED tests/test_oauth.py::test_refresh_expired - AssertionError: 401 != 200",
        text: "full log text is not quoted",
        annotations_count: 2,
        annotations_url: "https://api.github.com/repos/acme/shop/check-runs/12/annotations",
      },
    },
    checkRunPayload({ id: 13, name: "lint" }),
  ]);
  data.checkRuns.set(sha(3), [checkRunPayload({ id: 14, name: "pytest", status: "in_progress", conclusion: null })]);
  data.checkRuns.set(sha(4), [
    {
      ...checkRunPayload({ id: 15, name: "docs", conclusion: "failure" }),
      output: { title: "mkdocs build failed", summary: "Broken link: guides/oauth.md -> setup.md#tokens", text: null },
    },
  ]);
  data.statuses.set(sha(4), [commitStatusPayload({ id: 16, context: "ci/preview", state: "success" })]);
}

const STACK_ISSUES: FakeIssue[] = [
  { key: "SHOP-1", summary: "Sign-in", status: "Done", issueType: "Story" },
  { key: "SHOP-2", summary: "OAuth sign-in", status: "In Progress", issueType: "Story" },
  { key: "SHOP-3", summary: "Sign-in page", status: "In Review", issueType: "Story" },
  { key: "SHOP-4", summary: "Billing page", status: "To Do", issueType: "Story" },
];

export function seedJira(jira: FakeJira): void {
  jira.addIssues(...STACK_ISSUES);
}

/**
 * How many round trips the requests took: a request is in round n + 1 when it started after a
 * request of round n had been answered.
 */
export function roundTrips(requests: ReadonlyArray<{ startedAt: number; finishedAt: number }>): number {
  const rounds: number[] = [];
  const sorted = [...requests].sort((a, b) => a.startedAt - b.startedAt);
  for (const [i, request] of sorted.entries()) {
    let round = 1;
    for (let j = 0; j < i; j++) {
      const before = sorted[j] as { finishedAt: number };
      if (before.finishedAt <= request.startedAt) round = Math.max(round, (rounds[j] as number) + 1);
    }
    rounds.push(round);
  }
  return Math.max(0, ...rounds);
}
