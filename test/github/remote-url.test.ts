import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { displayRemoteUrl, parseRemoteUrl } from "../../src/github/target.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

describe("parseRemoteUrl", () => {
  const cases: Array<[string, { host: string; owner: string; repo: string } | null]> = [
    // https / http, with and without .git, trailing slashes, user-info
    ["https://github.com/omenien/twig", { host: "github.com", owner: "omenien", repo: "twig" }],
    ["https://github.com/omenien/twig.git", { host: "github.com", owner: "omenien", repo: "twig" }],
    ["https://github.com/omenien/twig.git/", { host: "github.com", owner: "omenien", repo: "twig" }],
    ["https://github.com/omenien/twig/", { host: "github.com", owner: "omenien", repo: "twig" }],
    ["http://github.com/o/r", { host: "github.com", owner: "o", repo: "r" }],
    ["https://user:tok@github.com/o/r.git", { host: "github.com", owner: "o", repo: "r" }],
    ["https://x-access-token@github.com/o/r", { host: "github.com", owner: "o", repo: "r" }],
    // scp-like
    ["git@github.com:my-org/my-project.git", { host: "github.com", owner: "my-org", repo: "my-project" }],
    ["git@github.com:my-org/my-project", { host: "github.com", owner: "my-org", repo: "my-project" }],
    ["github.com:o/r.git", { host: "github.com", owner: "o", repo: "r" }],
    ["git@github.com:/o/r.git", { host: "github.com", owner: "o", repo: "r" }],
    // ssh:// with and without port (upstream read the port as the owner)
    ["ssh://git@github.com/owner/repo.git", { host: "github.com", owner: "owner", repo: "repo" }],
    ["ssh://git@github.com:22/owner/repo.git", { host: "github.com", owner: "owner", repo: "repo" }],
    ["ssh://git@ssh.github.com:443/owner/repo.git", { host: "github.com", owner: "owner", repo: "repo" }],
    ["git+ssh://git@github.com/owner/repo.git", { host: "github.com", owner: "owner", repo: "repo" }],
    // git://
    ["git://github.com/owner/repo", { host: "github.com", owner: "owner", repo: "repo" }],
    ["git://github.com:9418/owner/repo.git", { host: "github.com", owner: "owner", repo: "repo" }],
    // dots in repo names are kept (upstream truncated them)
    ["https://github.com/owner/my.repo.git", { host: "github.com", owner: "owner", repo: "my.repo" }],
    ["git@github.com:owner/socket.io", { host: "github.com", owner: "owner", repo: "socket.io" }],
    ["https://github.com/owner/.github", { host: "github.com", owner: "owner", repo: ".github" }],
    ["https://github.com/owner/repo.git.git", { host: "github.com", owner: "owner", repo: "repo.git" }],
    // hosts are case-insensitive
    ["https://GitHub.com/o/r", { host: "github.com", owner: "o", repo: "r" }],
    ["git@GITHUB.COM:O/R.git", { host: "github.com", owner: "O", repo: "R" }],
    ["https://www.github.com/o/r", { host: "github.com", owner: "o", repo: "r" }],
    ["https://github.com./o/r", { host: "github.com", owner: "o", repo: "r" }],
    // Enterprise hosts, with an https port kept and ssh ports dropped
    ["https://github.example.com/o/r", { host: "github.example.com", owner: "o", repo: "r" }],
    ["https://ghe.corp:8443/o/r.git", { host: "ghe.corp:8443", owner: "o", repo: "r" }],
    ["https://ghe.corp:443/o/r.git", { host: "ghe.corp", owner: "o", repo: "r" }],
    ["ssh://git@ghe.corp:2222/o/r.git", { host: "ghe.corp", owner: "o", repo: "r" }],
    ["git@octo.ghe.com:o/r.git", { host: "octo.ghe.com", owner: "o", repo: "r" }],
    // look-alike hosts stay what they are
    ["https://github.com.evil.example/o/r", { host: "github.com.evil.example", owner: "o", repo: "r" }],
    ["git@github.com.evil.example:o/r.git", { host: "github.com.evil.example", owner: "o", repo: "r" }],
    ["https://evilgithub.com/o/r", { host: "evilgithub.com", owner: "o", repo: "r" }],
    ["https://github.com-work/o/r", { host: "github.com-work", owner: "o", repo: "r" }],
    ["https://evil.example/github.com/o/r", null],
    // not owner/repo
    ["https://github.com/only-owner", null],
    ["https://github.com/omenien/twig/pull/123", null],
    ["https://github.com/", null],
    ["https://github.com/o/r?x=1", { host: "github.com", owner: "o", repo: "r" }],
    ["https://github.com/o/../r", null],
    ["https://github.com/o/%2e%2e", null],
    ["https://github.com/o%20x/r", null],
    // local paths and other schemes
    ["/srv/git/repo.git", null],
    ["../repo", null],
    ["file:///srv/git/o/r.git", null],
    ["C:\\src\\o\\r", null],
    ["c:/src/o/r", null],
    ["ftp://github.com/o/r", null],
    ["", null],
    ["   ", null],
    ["ssh://git@github.com:owner/repo.git", null],
  ];

  for (const [url, expected] of cases) {
    test(`${JSON.stringify(url)} → ${expected ? `${expected.host} ${expected.owner}/${expected.repo}` : "null"}`, () => {
      expect(parseRemoteUrl(url)).toEqual(expected);
    });
  }

  test("github.com.evil.example is never github.com", () => {
    for (const url of [
      "https://github.com.evil.example/o/r",
      "git@github.com.evil.example:o/r",
      "ssh://git@github.com.evil.example/o/r",
      "https://github.com@evil.example/o/r",
      "https://evil.example\\@github.com/o/r",
    ]) {
      expect(parseRemoteUrl(url)?.host).not.toBe("github.com");
    }
  });

  const name = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,30}$/).filter((s) => s !== "." && s !== "..");
  const repoName = name.filter((s) => !s.endsWith(".git") && !s.endsWith("."));

  test("every form round-trips any valid owner/repo", () => {
    fc.assert(
      fc.property(name, repoName, fc.boolean(), (owner, repo, suffix) => {
        const tail = suffix ? ".git" : "";
        for (const url of [
          `https://github.com/${owner}/${repo}${tail}`,
          `http://github.com/${owner}/${repo}${tail}/`,
          `git@github.com:${owner}/${repo}${tail}`,
          `ssh://git@github.com:22/${owner}/${repo}${tail}`,
          `git://github.com/${owner}/${repo}${tail}`,
        ]) {
          expect(parseRemoteUrl(url)).toEqual({ host: "github.com", owner, repo });
        }
      }),
    );
  });

  test("never throws", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseRemoteUrl(text);
      }),
    );
  });
});

describe("displayRemoteUrl", () => {
  test("drops user-info that may carry a token", () => {
    expect(displayRemoteUrl("https://x-access-token:ghs_secret@github.com/o/r.git")).toBe("https://github.com/o/r.git");
    expect(displayRemoteUrl("https://ghp_secret@github.com/o/r")).toBe("https://github.com/o/r");
    // As git prints them (transport_anonymize_url): every user-info goes, scp form included.
    expect(displayRemoteUrl("git@github.com:o/r.git")).toBe("github.com:o/r.git");
  });

  test("a password holding # or ?, and scp-form user:pass, are redacted as git redacts them", () => {
    expect(displayRemoteUrl("https://me:pa#ss?wd@github.com/o/r.git")).toBe("https://github.com/o/r.git");
    expect(displayRemoteUrl("me:ghp_secret@github.com:o/r.git")).toBe("github.com:o/r.git");
    expect(displayRemoteUrl("ssh://me:s#cret@example.com:2222/o/r")).toBe("ssh://example.com:2222/o/r");
    // An @ in the path is not user-info; local paths are shown as they are.
    expect(displayRemoteUrl("https://github.com/o/r@v1")).toBe("https://github.com/o/r@v1");
    expect(displayRemoteUrl("/srv/git/me@home/r.git")).toBe("/srv/git/me@home/r.git");
    expect(displayRemoteUrl("https://t\u001b]52;c;x\u0007@github.com/o/r")).toBe("https://github.com/o/r");
  });
});

describe("hostile remote URLs", () => {
  test("a path of 200,000 slashes is refused in linear time", () => {
    // `^\/+|\/+$` retried from every slash of the run: minutes at this size.
    for (const prefix of ["https://github.com/", "git@github.com:", "ssh://git@github.com/"]) {
      expect(parseRemoteUrl(`${prefix}owner${"/".repeat(200_000)}x`)).toBeNull();
    }
    expect(parseRemoteUrl(`https://github.com///owner/repo.git///`)).toEqual({
      host: "github.com",
      owner: "owner",
      repo: "repo",
    });
  }, 20_000);
});
