import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../../src/core/context.ts";
import { toolError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import { err } from "../../src/core/result.ts";
import { resolveGitHubCredential } from "../../src/creds/credentials.ts";
import { ghConfigDir, parseGhHosts } from "../../src/creds/github-hosts.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { cleanupTemp, tempDir } from "./helpers.ts";

afterAll(cleanupTemp);

function ctxWith(options: { env?: Env; netrc?: string; hosts?: string; platform?: NodeJS.Platform } = {}) {
  const home = tempDir("twig-mcp-creds-");
  if (options.netrc !== undefined) writeFileSync(join(home, ".netrc"), options.netrc);
  if (options.hosts !== undefined) {
    mkdirSync(join(home, ".config", "gh"), { recursive: true });
    writeFileSync(join(home, ".config", "gh", "hosts.yml"), options.hosts);
  }
  const env = options.env ?? {};
  return {
    home,
    ctx: createTestContext({
      env,
      home,
      platform: options.platform ?? "linux",
      dirs: twigDirs(env, "linux", home),
      repo: err(toolError("no_repo", "none")),
      log: silentLogger,
    }),
  };
}

const HOSTS = `github.com:
    oauth_token: gho_fromHostsYml
    user: monalisa
    git_protocol: https
    users:
        monalisa:
            oauth_token: gho_nested
ghe.corp:
    user: someone
    oauth_token: "gho_quoted" # comment
`;

describe("resolveGitHubCredential", () => {
  test("netrc first (twig's machine github.com), password is the token", async () => {
    const { ctx, home } = ctxWith({
      netrc: "machine github.com login me password netrcToken\n",
      env: { GH_TOKEN: "envToken" },
      hosts: HOSTS,
    });
    const found = await resolveGitHubCredential(ctx, { host: "github.com", apiHost: "api.github.com" });
    expect(found).toEqual({
      ok: true,
      value: { token: "netrcToken", source: `${join(home, ".netrc")} (machine github.com)` },
    });
  });

  test("netrc api host is a second choice; a default entry only a last netrc resort", async () => {
    const { ctx } = ctxWith({
      netrc: "default login d password defaultToken\nmachine api.github.com login me password apiToken\n",
    });
    const found = await resolveGitHubCredential(ctx, { host: "github.com", apiHost: "api.github.com" });
    expect(found.ok && found.value.token).toBe("apiToken");
    const { ctx: onlyDefault } = ctxWith({ netrc: "default login d password defaultToken\n" });
    const fallback = await resolveGitHubCredential(onlyDefault, { host: "github.com" });
    expect(fallback.ok && fallback.value).toMatchObject({
      token: "defaultToken",
      source: expect.stringContaining("default"),
    });
  });

  test("then GH_TOKEN, then GITHUB_TOKEN, then gh's hosts.yml", async () => {
    const both = ctxWith({ env: { GH_TOKEN: " ghToken ", GITHUB_TOKEN: "githubToken" }, hosts: HOSTS });
    expect(await resolveGitHubCredential(both.ctx, { host: "github.com" })).toEqual({
      ok: true,
      value: { token: "ghToken", source: "$GH_TOKEN" },
    });
    const second = ctxWith({ env: { GH_TOKEN: "", GITHUB_TOKEN: "githubToken" }, hosts: HOSTS });
    expect(await resolveGitHubCredential(second.ctx, { host: "github.com" })).toEqual({
      ok: true,
      value: { token: "githubToken", source: "$GITHUB_TOKEN" },
    });
    const gh = ctxWith({ hosts: HOSTS });
    const found = await resolveGitHubCredential(gh.ctx, { host: "github.com" });
    expect(found.ok && found.value.token).toBe("gho_fromHostsYml");
  });

  test("github.com tokens from the environment never go to another host", async () => {
    const { ctx } = ctxWith({ env: { GH_TOKEN: "ghToken", GITHUB_TOKEN: "githubToken" } });
    const lookalike = await resolveGitHubCredential(ctx, { host: "github.com.evil.example" });
    expect(lookalike.ok).toBe(false);
    if (!lookalike.ok) {
      expect(lookalike.error.code).toBe("credentials_missing");
      expect(lookalike.error.message).not.toContain("$GH_TOKEN");
    }
    const tenant = await resolveGitHubCredential(ctx, { host: "octo.ghe.com" });
    expect(tenant.ok && tenant.value.source).toBe("$GH_TOKEN");
    // Unless the user pointed the server at that host themselves (GH_HOST / GITHUB_API_URL).
    const explicit = await resolveGitHubCredential(ctx, { host: "ghe.corp", explicitDestination: true });
    expect(explicit.ok && explicit.value.source).toBe("$GH_TOKEN");
  });

  test("Enterprise tokens go only to a host named by the user or known to gh", async () => {
    const { ctx } = ctxWith({ env: { GH_ENTERPRISE_TOKEN: "entToken" }, hosts: HOSTS });
    const unknown = await resolveGitHubCredential(ctx, { host: "git.unknown.example" });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.hint).toContain("GH_HOST=git.unknown.example");
    const named = await resolveGitHubCredential(ctx, { host: "git.unknown.example", explicitDestination: true });
    expect(named.ok && named.value.source).toBe("$GH_ENTERPRISE_TOKEN");
  });

  test("Enterprise Server: GH_ENTERPRISE_TOKEN, then hosts.yml for that host", async () => {
    const env = ctxWith({ env: { GH_ENTERPRISE_TOKEN: "entToken" }, hosts: HOSTS });
    expect(await resolveGitHubCredential(env.ctx, { host: "ghe.corp" })).toEqual({
      ok: true,
      value: { token: "entToken", source: "$GH_ENTERPRISE_TOKEN" },
    });
    const file = ctxWith({ hosts: HOSTS });
    const found = await resolveGitHubCredential(file.ctx, { host: "GHE.corp" });
    expect(found.ok && found.value.token).toBe("gho_quoted");
  });

  test("nothing found: credentials_missing lists every place looked", async () => {
    const { ctx, home } = ctxWith();
    const result = await resolveGitHubCredential(ctx, { host: "github.com", apiHost: "api.github.com" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("credentials_missing");
    expect(result.error.message).toBe(
      `GitHub credentials not found for github.com. Looked in: ${join(home, ".netrc")} (machine github.com), ${join(home, ".netrc")} (machine api.github.com), $GH_TOKEN, $GITHUB_TOKEN, ${join(home, ".config", "gh", "hosts.yml")} (github.com oauth_token)`,
    );
    expect(result.error.hint).toContain("GH_TOKEN=$(gh auth token)");
  });

  test("an unreadable .netrc does not stop the chain", async () => {
    if (process.getuid?.() === 0) return; // root reads anything
    const { ctx, home } = ctxWith({ netrc: "machine github.com login me password x\n", env: { GH_TOKEN: "envToken" } });
    chmodSync(join(home, ".netrc"), 0o000);
    const found = await resolveGitHubCredential(ctx, { host: "github.com" });
    expect(found.ok && found.value.source).toBe("$GH_TOKEN");
  });
});

describe("gh config", () => {
  test("config dir follows gh's rules", () => {
    const base = { home: "/home/me", platform: "linux" as const };
    expect(ghConfigDir({ ...base, env: { GH_CONFIG_DIR: "/x/gh" } })).toBe("/x/gh");
    expect(ghConfigDir({ ...base, env: { XDG_CONFIG_HOME: "/xdg" } })).toBe("/xdg/gh");
    expect(ghConfigDir({ ...base, env: { XDG_CONFIG_HOME: "relative" } })).toBe("/home/me/.config/gh");
    expect(ghConfigDir({ ...base, env: {} })).toBe("/home/me/.config/gh");
    expect(ghConfigDir({ home: "/Users/me", platform: "darwin", env: {} })).toBe("/Users/me/.config/gh");
    expect(
      ghConfigDir({ home: "C:\\Users\\me", platform: "win32", env: { APPDATA: "C:\\Users\\me\\AppData\\Roaming" } }),
    ).toBe("C:\\Users\\me\\AppData\\Roaming\\GitHub CLI");
  });

  test("hosts.yml parser", () => {
    const hosts = parseGhHosts(HOSTS);
    expect([...hosts.keys()]).toEqual(["github.com", "ghe.corp"]);
    expect(hosts.get("github.com")).toEqual({ oauth_token: "gho_fromHostsYml", user: "monalisa" });
    expect(hosts.get("ghe.corp")).toEqual({ user: "someone", oauth_token: "gho_quoted" });
    expect(parseGhHosts("github.com:\n  user: a # x\n  oauth_token: 'it''s'\n").get("github.com")).toEqual({
      user: "a",
      oauth_token: "it's",
    });
    // Keyring storage: no token in the file.
    expect(
      parseGhHosts("github.com:\n    git_protocol: ssh\n    user: a\n").get("github.com")?.oauth_token,
    ).toBeUndefined();
    expect(parseGhHosts("").size).toBe(0);
    expect(parseGhHosts("\uFEFF# comment\n---\n").size).toBe(0);
  });
});
