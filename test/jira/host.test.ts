import { describe, expect, test } from "bun:test";
import { checkJiraHost, isAtlassianCloudHost, normalizeHost } from "../../src/jira/host.ts";

describe("the base URL of JIRA_HOST, as twig's ensure_url_scheme makes it", () => {
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
    ["example.com/http://other.com", "https://example.com/http://other.com"],
    // Beyond the table: whitespace, default ports, case, IDN, explicit loopback used by the tests.
    ["  company.atlassian.net  ", "https://company.atlassian.net"],
    ["https://Jira.Example.com:443/", "https://jira.example.com"],
    ["http://jira.example.com:80", "http://jira.example.com"],
    ["https://Jira.Example.com:8443/", "https://jira.example.com:8443"],
    ["http://127.0.0.1:43210", "http://127.0.0.1:43210"],
    ["https://example.com/jira/", "https://example.com/jira/"],
    ["http:example.com", "https://example.com"],
    ["HTTPS:example.com", "https://example.com"],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      const checked = checkJiraHost(input);
      expect(checked.ok && checked.value.base.baseUrl).toBe(expected);
    });
  }
});

describe("normalizeHost, as twig's normalize_host", () => {
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
});

describe("the API root", () => {
  test("without trailing slash, userinfo dropped from what is shown and requested", () => {
    expect(checkJiraHost("https://example.com/jira/")).toEqual({
      ok: true,
      value: {
        base: {
          baseUrl: "https://example.com/jira/",
          apiRoot: "https://example.com/jira",
          hostname: "example.com",
        },
        note: null,
      },
    });
    const withUser = checkJiraHost("https://me:secret@jira.example.com");
    expect(withUser.ok && withUser.value.base.apiRoot).toBe("https://jira.example.com");
  });

  test("Cloud host detection", () => {
    expect(isAtlassianCloudHost("company.atlassian.net")).toBe(true);
    expect(isAtlassianCloudHost("atlassian.net")).toBe(false);
    expect(isAtlassianCloudHost("atlassian.net.evil.example")).toBe(false);
    expect(isAtlassianCloudHost("jira.example.com")).toBe(false);
  });
});
