/**
 * The sample repository's branches and the `.twig/state.json` twig would have written for them
 * (format: twig-reference §2; fixed ids and times, so every run shows the same answers).
 */

export interface SampleBranch {
  name: string;
  /** The branch it was cut from, which is also its declared twig parent. */
  parent: string;
  jira: string | null;
  pr: number | null;
  /** One file the branch adds, so each branch has a commit of its own. */
  file: string;
  message: string;
}

export const SAMPLE_REPO_NAME = "shop";
/** Checked out in the main checkout; the last branch of the first stack lives in a linked worktree. */
export const SAMPLE_CURRENT = "feature/auth";
export const SAMPLE_WORKTREE_BRANCH = "feature/auth-ui";

export const SAMPLE_BRANCHES: readonly SampleBranch[] = [
  {
    name: "feature/auth",
    parent: "main",
    jira: "SHOP-123",
    pr: 42,
    file: "src/auth.ts",
    message: "SHOP-123 Sign in with email",
  },
  {
    name: "feature/auth-ui",
    parent: "feature/auth",
    jira: "SHOP-124",
    pr: 43,
    file: "src/auth-form.tsx",
    message: "SHOP-124 Sign-in form",
  },
  {
    name: "feature/billing",
    parent: "main",
    jira: "SHOP-200",
    pr: 51,
    file: "src/billing.ts",
    message: "SHOP-200 Billing accounts",
  },
  {
    name: "feature/billing-invoices",
    parent: "feature/billing",
    jira: "SHOP-201",
    pr: null,
    file: "src/invoices.ts",
    message: "SHOP-201 Monthly invoices",
  },
];

/** `name` as twig names a worktree: every `/` replaced by `-`. */
export function worktreeName(branch: string): string {
  return branch.replaceAll("/", "-");
}

/** The state file's text, pretty-printed as twig (serde_json) writes it: 2 spaces, no final newline. */
export function sampleStateJson(worktreePath: string): string {
  const ids = [
    "0f8d2c6e-5b7a-4c1e-9d3f-2a6b8e4c1d70",
    "7c1e9a44-3f2b-4d6a-8e05-b9d2f1a3c6e8",
    "c2a5e7f1-9b3d-4e8a-a6c4-1d7f0b2e9a35",
    "3b7f0d2a-6c4e-4a19-8f25-e1d9c3b7a640",
  ];
  const state = {
    version: 1,
    updated_at: "2025-06-03T14:22:07.481920311Z",
    worktrees: [
      {
        name: worktreeName(SAMPLE_WORKTREE_BRANCH),
        path: worktreePath,
        branch: SAMPLE_WORKTREE_BRANCH,
        created_at: "2025-06-02T09:15:30+00:00",
      },
    ],
    branches: Object.fromEntries(
      SAMPLE_BRANCHES.map((b, i) => [
        b.name,
        { branch: b.name, jira_issue: b.jira, github_pr: b.pr, created_at: `2025-06-0${i + 1}T10:00:00+00:00` },
      ]),
    ),
    dependencies: SAMPLE_BRANCHES.map((b, i) => ({
      id: ids[i],
      child: b.name,
      parent: b.parent,
      created_at: `2025-06-0${i + 1}T10:00:01.204518Z`,
    })),
    root_branches: [
      {
        id: "5e3b1d9c-7a2f-4c8e-b1d6-9f4a2c7e3b10",
        branch: "main",
        is_default: true,
        created_at: "2025-06-01T09:58:44Z",
      },
    ],
  };
  return JSON.stringify(state, null, 2);
}
