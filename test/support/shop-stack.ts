/**
 * A twig stack in a real repository whose `origin` is acme/shop on GitHub, and that repository's PRs on a fake
 * GitHub: what the tests of get_stack_status's and get_branch_context's next steps are built on.
 */
import { makeRepo } from "../github/helpers.ts";
import type { FakeGitHub, PullOptions } from "./fake-github.ts";

const at = "2025-06-01T10:00:00Z";
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** Each branch's twig parent and the PR twig links it to, parents before children. */
export type ShopStack = Record<string, { parent: string; pr?: number }>;

/** A repository on main (one commit) and twig's state of `stack`, main its default root. */
export function shopRepo(stack: ShopStack): string {
  return makeRepo({
    branch: "main",
    remotes: [["origin", "git@github.com:acme/shop.git"]],
    state: {
      version: 1,
      updated_at: at,
      worktrees: [],
      branches: Object.fromEntries(
        Object.entries(stack).map(([branch, { pr }]) => [
          branch,
          { branch, jira_issue: null, github_pr: pr ?? null, created_at: at },
        ]),
      ),
      dependencies: Object.entries(stack).map(([child, { parent }], i) => ({
        id: uuid(i),
        child,
        parent,
        created_at: at,
      })),
      root_branches: [{ id: uuid(99), branch: "main", is_default: true, created_at: at }],
    },
  });
}

/** Adds a PR of acme/shop to the fake GitHub. */
export function addShopPull(github: FakeGitHub, pull: Omit<PullOptions, "owner" | "repo">): void {
  github.addPull({ owner: "acme", repo: "shop", ...pull });
}
