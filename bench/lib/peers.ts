/**
 * Peer MCP servers for comparison, installed from the npm registry into a temp dir with npm (the
 * way their READMEs start them: `npx …`, i.e. on Node.js). Versions are pinned so runs compare.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const GIT_PEER = { name: "@cyanheads/git-mcp-server", version: "2.15.3", bin: "dist/index.js" } as const;
export const GITHUB_PEER = {
  name: "@modelcontextprotocol/server-github",
  version: "2025.4.8",
  bin: "dist/index.js",
} as const;

export interface InstalledPeers {
  /** `[node, entry]` for each peer. */
  git: string[];
  github: string[];
  node: string;
  nodeVersion: string;
}

/** Installs both peers into `dir` (reused when already there); throws with npm's output on failure. */
export async function installPeers(dir: string): Promise<InstalledPeers> {
  mkdirSync(dir, { recursive: true });
  const entry = (peer: { name: string; bin: string }) => join(dir, "node_modules", peer.name, peer.bin);
  if (!existsSync(entry(GIT_PEER)) || !existsSync(entry(GITHUB_PEER))) {
    const npm = Bun.spawn(
      [
        "npm",
        "install",
        "--prefix",
        dir,
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        `${GIT_PEER.name}@${GIT_PEER.version}`,
        `${GITHUB_PEER.name}@${GITHUB_PEER.version}`,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, errText, code] = await Promise.all([
      new Response(npm.stdout).text(),
      new Response(npm.stderr).text(),
      npm.exited,
    ]);
    if (code !== 0) throw new Error(`npm install exited ${code}:\n${out}${errText}`.trim());
  }
  const node = Bun.which("node");
  if (!node) throw new Error("the peers run on Node.js, and `node` is not on PATH");
  const version = Bun.spawnSync([node, "--version"]).stdout.toString().trim();
  return { git: [node, entry(GIT_PEER)], github: [node, entry(GITHUB_PEER)], node, nodeVersion: version };
}

/** Environment for the git peer: stdio, quiet, no commit signing, logs inside `logsDir`. */
export function gitPeerEnv(base: Record<string, string>, logsDir: string): Record<string, string> {
  return {
    ...base,
    MCP_TRANSPORT_TYPE: "stdio",
    MCP_LOG_LEVEL: "error",
    LOGS_DIR: logsDir,
    GIT_SIGN_COMMITS: "false",
  };
}

/** Environment for the GitHub peer: a placeholder token (only start-up is measured; no request is sent). */
export function githubPeerEnv(base: Record<string, string>): Record<string, string> {
  return { ...base, GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_bench_placeholder_never_sent" };
}
