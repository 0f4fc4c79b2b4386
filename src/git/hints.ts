/** The hint for a repository file or directory the server cannot read: what to check, and how git sees it. */
export function unreadableHint(path: string): string {
  return `Check that ${path} is readable by the user running twig-mcp (and is a file, or a directory where git keeps one); \`git status\` in the repository shows whether git can read it.`;
}
