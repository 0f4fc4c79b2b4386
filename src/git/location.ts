/** Where a repository's files are, as discovery found them (src/git/discover.ts). */
export interface RepoLocation {
  /** Absolute, canonical: the per-worktree git dir (HEAD lives here). */
  gitDir: string;
  /** Absolute, canonical: the shared dir (refs/, packed-refs, config, worktrees/); `gitDir` unless a linked worktree. */
  commonDir: string;
  /** Absolute, canonical working-tree root (discovery refuses bare repositories). */
  workTree: string;
  isLinkedWorktree: boolean;
}
