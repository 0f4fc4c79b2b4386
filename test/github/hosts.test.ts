import { describe, expect, test } from "bun:test";
import { isOtherForge, knownGitHubHosts, parseHostSetting } from "../../src/creds/github-hosts.ts";
import { apiBaseUrl } from "../../src/github/client.ts";

describe("apiBaseUrl", () => {
  const table: Array<[string, string]> = [
    ["github.com", "https://api.github.com"],
    ["github.example.com", "https://github.example.com/api/v3"],
    ["ghe.corp:8443", "https://ghe.corp:8443/api/v3"],
    ["octo.ghe.com", "https://api.octo.ghe.com"],
    ["github.com.evil.example", "https://github.com.evil.example/api/v3"],
  ];
  for (const [host, base] of table) {
    test(`${host} → ${base}`, () => {
      expect(apiBaseUrl(host, {})).toEqual({ ok: true, value: base });
    });
  }

  test("GITHUB_API_URL wins, trailing slashes dropped", () => {
    expect(apiBaseUrl("github.com", { GITHUB_API_URL: "http://127.0.0.1:1234/" })).toEqual({
      ok: true,
      value: "http://127.0.0.1:1234",
    });
    expect(apiBaseUrl("ghe.corp", { GITHUB_API_URL: "https://ghe.corp/api/v3" })).toEqual({
      ok: true,
      value: "https://ghe.corp/api/v3",
    });
    expect(apiBaseUrl("github.com", { GITHUB_API_URL: "  " })).toEqual({ ok: true, value: "https://api.github.com" });
  });

  test("an unusable GITHUB_API_URL is an error, and credentials in it are refused", () => {
    for (const value of ["not a url", "ftp://x", "https://user:pass@api.github.com"]) {
      const result = apiBaseUrl("github.com", { GITHUB_API_URL: value });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).not.toContain("pass");
    }
  });
});

describe("hosts", () => {
  test("GH_HOST accepts a bare host or a URL", () => {
    expect(parseHostSetting("GitHub.Example.com")).toBe("github.example.com");
    expect(parseHostSetting("https://ghe.corp:8443/")).toBe("ghe.corp:8443");
    expect(parseHostSetting("")).toBeNull();
    expect(parseHostSetting("not a host")).toBeNull();
  });

  test("known GitHub hosts", () => {
    const known = knownGitHubHosts({ GH_HOST: "ghe.corp", GITHUB_SERVER_URL: "https://actions.corp" }, ["Logged.In"]);
    for (const host of ["github.com", "tenant.ghe.com", "ghe.corp", "actions.corp", "logged.in"]) {
      expect(known(host)).toBe(true);
    }
    for (const host of ["github.com.evil.example", "evilgithub.com", "ghe.com", "gitlab.com"]) {
      expect(known(host)).toBe(false);
    }
  });

  test("other forges", () => {
    for (const host of ["gitlab.com", "gitlab.corp.example", "bitbucket.org", "dev.azure.com", "codeberg.org"]) {
      expect(isOtherForge(host)).toBe(true);
    }
    for (const host of ["github.com", "git.corp.example", "ghe.corp:8443"]) expect(isOtherForge(host)).toBe(false);
  });
});
