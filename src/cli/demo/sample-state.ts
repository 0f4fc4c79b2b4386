/**
 * The sample repository's branches and the `.twig/state.json` twig would have written for them
 * (format: twig-reference §2; fixed ids and times, so every run shows the same answers).
 */

export const SAMPLE_REPO_NAME = "shop";
/** Checked out in the main checkout; the last branch of the first stack lives in a linked worktree. */
export const SAMPLE_CURRENT = "feature/auth";
export const SAMPLE_WORKTREE_BRANCH = "feature/auth-ui";

/** Cut from `parent` (also its twig parent), with a commit that adds `file`. */
const branch = (name: string, parent: string, jira: string, pr: number | null, file: string, title: string) => ({
  name,
  parent,
  jira,
  pr,
  file,
  message: `${jira} ${title}`,
});

export const SAMPLE_BRANCHES = [
  branch("feature/auth", "main", "SHOP-123", 42, "src/auth.ts", "Sign in with email"),
  branch("feature/auth-ui", "feature/auth", "SHOP-124", 43, "src/auth-form.tsx", "Sign-in form"),
  branch("feature/billing", "main", "SHOP-200", 51, "src/billing.ts", "Billing accounts"),
  branch("feature/billing-invoices", "feature/billing", "SHOP-201", null, "src/invoices.ts", "Monthly invoices"),
];

/** `name` as twig names a worktree: every `/` replaced by `-`. */
export function worktreeName(branch: string): string {
  return branch.replaceAll("/", "-");
}

const ROOT_ID = "5e3b1d9c-7a2f-4c8e-b1d6-9f4a2c7e3b10";

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
    root_branches: [{ id: ROOT_ID, branch: "main", is_default: true, created_at: "2025-06-01T09:58:44Z" }],
  };
  return JSON.stringify(state, null, 2);
}
