import { checkBranchName } from "../git/refname.ts";

export const TREE_URI = "twig://repo/tree";
export const BRANCHES_URI = "twig://repo/branches";
export const BRANCH_CONTEXT_TEMPLATE = "twig://branch/{name}/context";

export type TwigResource =
  | { kind: "tree"; repo?: string }
  | { kind: "branches"; repo?: string }
  | { kind: "context"; branch: string; repo?: string };

/** Parses our URIs (optional `?repo=`; a branch percent-encoded or raw); `null` if not ours or invalid. */
export function parseTwigUri(uri: string): TwigResource | null {
  const url = URL.parse(uri);
  if (url?.protocol !== "twig:") return null;
  const repoParam = url.searchParams.get("repo");
  const repo = repoParam === null || repoParam === "" ? {} : { repo: repoParam };
  if (url.host === "repo" && url.pathname === "/tree") return { kind: "tree", ...repo };
  if (url.host === "repo" && url.pathname === "/branches") return { kind: "branches", ...repo };
  // `/<name>/context`, matched by its ends: no pattern to backtrack over a long hostile URI.
  const path = url.pathname;
  const suffix = "/context";
  if (url.host !== "branch" || !path.startsWith("/") || !path.endsWith(suffix)) return null;
  if (path.length <= 1 + suffix.length) return null;
  let branch: string;
  try {
    branch = decodeURIComponent(path.slice(1, -suffix.length));
  } catch {
    return null;
  }
  return checkBranchName(branch) === null ? { kind: "context", branch, ...repo } : null;
}
