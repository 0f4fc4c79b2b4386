import { describe, expect, test } from "bun:test";
import { ensureUrlScheme, isAtlassianCloudHost, jiraBase, normalizeHost } from "../../src/jira/host.ts";

describe("ensureUrlScheme (twig-reference §7.1)", () => {
  const cases: [string, string][] = [
    ["https://company.atlassian.net", "https://company.atlassian.net"],
    ["company.atlassian.net", "https://company.atlassian.net"],
    ["https://company.atlassian.net/", "https://company.atlassian.net"],
    ["http://jira.example.com", "http://jira.example.com"],
    ["HTTP://example.com", "http://example.com"],
    ["HTTPS://example.com", "https://example.com"],
    ["http:/example.com", "https://example.com"],
    ["https:/example.com", "https://example.com"],
    ["localhost", "https://localhost"],
    ["localhost:8080", "https://localhost:8080"],
    ["192.168.1.100:8080", "https://192.168.1.100:8080"],
    ["example.com/path/to/resource", "https://example.com/path/to/resource"],
    ["example.com?param=value", "https://example.com?param=value"],
    ["example.com#section", "https://example.com#section"],
    ["example.com/http://other.com", "https://example.com/http://other.com"],
    ["ftp://example.com", "ftp://example.com"],
    // Beyond the table: whitespace, default ports, case, IDN, explicit loopback used by the tests.
    ["  company.atlassian.net  ", "https://company.atlassian.net"],
    ["https://Jira.Example.com:443/", "https://jira.example.com"],
    ["http://jira.example.com:80", "http://jira.example.com"],
    ["https://Jira.Example.com:8443/", "https://jira.example.com:8443"],
    ["http://127.0.0.1:43210", "http://127.0.0.1:43210"],
    ["https://example.com/jira/", "https://example.com/jira/"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
    ["http:example.com", "https://example.com"],
    ["HTTPS:example.com", "https://example.com"],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      expect(ensureUrlScheme(input)).toEqual({ ok: true, value: expected });
    });
  }

  test.each(["", "   ", "\t\n"])("%p is 'Host cannot be empty'", (input) => {
    expect(ensureUrlScheme(input)).toEqual({ ok: false, error: "Host cannot be empty" });
  });

  test("unparseable input names the text handed to the https path", () => {
    expect(ensureUrlScheme("http:")).toEqual({
      ok: false,
      error: "Failed to parse URL: ''. Ensure it has a valid scheme.",
    });
    expect(ensureUrlScheme("exa mple.com")).toEqual({
      ok: false,
      error: "Failed to parse URL: 'exa mple.com'. Ensure it has a valid scheme.",
    });
    expect(ensureUrlScheme("http:/exa mple.com")).toEqual({
      ok: false,
      error: "Failed to parse URL: 'exa mple.com'. Ensure it has a valid scheme.",
    });
  });
});

describe("normalizeHost (twig-reference §5.3)", () => {
  test.each([
    ["https://company.atlassian.net", "company.atlassian.net"],
    ["https://jira.example.com:8443", "jira.example.com:8443"],
    ["https://example.com/jira", "example.com/jira"],
    ["https://example.com/jira/", "example.com/jira"],
    ["ftp://x.org", "ftp://x.org"],
    ["https://https://http://x.org//", "x.org"],
    ["http://127.0.0.1:4000", "127.0.0.1:4000"],
  ])("%p → %p", (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });

  test("composes with ensureUrlScheme as twig does", () => {
    const base = ensureUrlScheme("https://Jira.Example.com:8443/");
    expect(base.ok && normalizeHost(base.value)).toBe("jira.example.com:8443");
  });
});

describe("jiraBase", () => {
  test("API root without trailing slash, userinfo dropped from what is shown and requested", () => {
    expect(jiraBase("https://example.com/jira/")).toEqual({
      ok: true,
      value: {
        baseUrl: "https://example.com/jira/",
        apiRoot: "https://example.com/jira",
        hostname: "example.com",
        display: "https://example.com/jira",
      },
    });
    const withUser = jiraBase("https://me:secret@jira.example.com");
    expect(withUser.ok && withUser.value.apiRoot).toBe("https://jira.example.com");
    expect(withUser.ok && withUser.value.display).toBe("https://jira.example.com");
  });

  test("refuses bases requests cannot be appended to", () => {
    expect(jiraBase("https://example.com?param=value").ok).toBe(false);
    expect(jiraBase("https://example.com#section").ok).toBe(false);
    expect(jiraBase("ftp://example.com")).toEqual({ ok: false, error: "JIRA_HOST must be an http(s) URL, not ftp://" });
  });

  test("Cloud host detection", () => {
    expect(isAtlassianCloudHost("company.atlassian.net")).toBe(true);
    expect(isAtlassianCloudHost("atlassian.net")).toBe(false);
    expect(isAtlassianCloudHost("atlassian.net.evil.example")).toBe(false);
    expect(isAtlassianCloudHost("jira.example.com")).toBe(false);
  });
});
