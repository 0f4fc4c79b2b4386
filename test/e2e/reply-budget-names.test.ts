/**
 * The reply budget holds whatever the names: 6,000 branches named in token-dense ways (hex and
 * base64, CJK, emoji) or ordinarily, and every list_branches page and get_branch_tree reply stays
 * within 20,000 tokens as `@anthropic-ai/tokenizer` counts them. Through the compiled binary.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareBytewise } from "../../src/git/bytewise.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { countTokens } from "../support/tokens.ts";

setDefaultTimeout(120_000);

const BRANCHES = 6_000;
const BUDGET_TOKENS = 20_000;

/** A seeded generator, so a failure names the same names on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

function pick(next: () => number, alphabet: readonly string[], length: number): string {
  return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
}

const HEX = [..."0123456789abcdef"];
const BASE64 = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"];
const CJK = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7));
const EMOJI = [...Array.from({ length: 200 }, (_, i) => String.fromCodePoint(0x1f300 + i)), "👩‍💻", "✔️"];
const WORDS = ["auth", "checkout", "payments", "login-fix", "refactor", "search", "cache", "billing"];

const KINDS: Record<string, (next: () => number, i: number) => string> = {
  hex: (next) => `u/${pick(next, HEX, 12)}/${pick(next, BASE64, 10)}`,
  cjk: (next, i) => `機能/${pick(next, CJK, 10)}-${i}`,
  emoji: (next, i) => `e/${pick(next, EMOJI, 8)}-${i}`,
  ordinary: (next, i) => `feature/${WORDS[Math.floor(next() * WORDS.length)]}-${i}`,
};

for (const [kind, name] of Object.entries(KINDS)) {
  describe(`${BRANCHES.toLocaleString("en-US")} ${kind} branch names`, () => {
    let repo: GitRepo;
    let home: HermeticHome;
    let server: RunningServer;
    const next = random(kind.length * 7919);
    const names = [...new Set(Array.from({ length: BRANCHES }, (_, i) => name(next, i)))].sort(compareBytewise);

    beforeAll(async () => {
      repo = makeRepo({ commit: true });
      const head = repo.git("rev-parse", "HEAD");
      const refs = ["main", ...names].map((branch) => `refs/heads/${branch}`).sort(compareBytewise);
      writeFileSync(join(repo.root, ".git", "packed-refs"), refs.map((ref) => `${head} ${ref}\n`).join(""));
      const branches = Object.fromEntries(
        names.map((branch, i) => [
          branch,
          { jira_issue: `PROJ-${i + 1}`, github_pr: i + 1, created_at: "2025-10-01T12:00:00Z" },
        ]),
      );
      // Chains of ten under main, so the tree is drawn with depth.
      const dependencies = names.map((child, i) => ({ child, parent: i % 10 === 0 ? "main" : names[i - 1] }));
      repo.write(
        ".twig/state.json",
        JSON.stringify({ version: 1, branches, dependencies, root_branches: [{ branch: "main", is_default: true }] }),
      );
      home = makeHermeticHome();
      server = await startServer({ cwd: repo.root, env: home.env });
    });

    afterAll(async () => {
      await server?.close();
      repo?.cleanup();
      home?.cleanup();
    });

    test("list_branches pages and get_branch_tree stay within 20,000 tokens", async () => {
      const counts: Record<string, number> = {};
      const first = await server.call("list_branches");
      expect(first.isError).toBe(false);
      const data = first.structured as { branches: unknown[]; next_cursor?: string };
      expect(data.next_cursor).toBeDefined();
      counts.list_branches = countTokens(first.text);
      const second = await server.call("list_branches", { cursor: data.next_cursor });
      counts.next_page = countTokens(second.text);
      const tree = await server.call("get_branch_tree");
      expect(tree.isError).toBe(false);
      counts.get_branch_tree = countTokens(tree.text);
      for (const tokens of Object.values(counts)) expect(tokens).toBeLessThanOrEqual(BUDGET_TOKENS);
      // Not cut to nothing: a page holds hundreds of branches.
      expect(data.branches.length).toBeGreaterThan(100);
      console.log(`${kind}: ${data.branches.length} branches on the first page;`, JSON.stringify(counts));
    });
  });
}
