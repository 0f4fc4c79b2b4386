/** A worked example of twig's state file, reused by many tests. */
export const EXAMPLE_STATE = {
  version: 1,
  updated_at: "2025-06-03T14:22:07.481920311Z",
  worktrees: [
    {
      name: "feature-auth-ui",
      path: "/home/alice/src/shop-worktrees/feature-auth-ui",
      branch: "feature/auth-ui",
      created_at: "2025-06-02T09:15:30+00:00",
    },
  ],
  branches: {
    "feature/auth-ui": {
      branch: "feature/auth-ui",
      jira_issue: null,
      github_pr: 43,
      created_at: "2025-06-02T09:15:30.118264907+00:00",
    },
    "feature/auth": {
      branch: "feature/auth",
      jira_issue: "SHOP-123",
      github_pr: 42,
      created_at: "2025-06-01T10:00:00+00:00",
    },
    "feature/billing": {
      branch: "feature/billing",
      jira_issue: "SHOP-200",
      github_pr: null,
      created_at: "2025-06-02T11:40:12+00:00",
    },
  },
  dependencies: [
    {
      id: "0f8d2c6e-5b7a-4c1e-9d3f-2a6b8e4c1d70",
      child: "feature/auth",
      parent: "main",
      created_at: "2025-06-01T10:00:01.204518Z",
    },
    {
      id: "7c1e9a44-3f2b-4d6a-8e05-b9d2f1a3c6e8",
      child: "feature/auth-ui",
      parent: "feature/auth",
      created_at: "2025-06-02T09:15:31.733201964Z",
    },
    {
      id: "c2a5e7f1-9b3d-4e8a-a6c4-1d7f0b2e9a35",
      child: "feature/billing",
      parent: "main",
      created_at: "2025-06-02T11:40:13.500Z",
    },
  ],
  root_branches: [
    {
      id: "5e3b1d9c-7a2f-4c8e-b1d6-9f4a2c7e3b10",
      branch: "main",
      is_default: true,
      created_at: "2025-06-01T09:58:44.902117Z",
    },
  ],
};

export const EXAMPLE_BRANCHES = ["main", "feature/auth", "feature/auth-ui", "feature/billing", "hotfix/typo"];

/** A state linking no PR or issue: a record per name, and `parent(i)`'s dependency where it gives one. */
export function unlinkedState(names: readonly string[], parent: (index: number) => string | undefined): unknown {
  const at = "2025-06-01T10:00:00Z";
  return {
    version: 1,
    updated_at: at,
    worktrees: [],
    branches: Object.fromEntries(
      names.map((name) => [name, { branch: name, jira_issue: null, github_pr: null, created_at: at }]),
    ),
    dependencies: names.flatMap((child, i) => {
      const of = parent(i);
      return of === undefined ? [] : [{ id: String(i), child, parent: of, created_at: at }];
    }),
    root_branches: [],
  };
}

/** twig writes pretty JSON with two-space indent and no trailing newline. */
export function twigJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The exact tree text twig draws for that state. */
export const EXAMPLE_TREE_TEXT =
  "main\n├── feature/auth (SHOP-123, #42)\n│   └── feature/auth-ui (#43)\n├── feature/billing (SHOP-200)\n└── hotfix/typo\n";
