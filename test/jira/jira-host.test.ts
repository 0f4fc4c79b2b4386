/** `JIRA_HOST` is checked before any request: values that cannot name a site are `invalid_config`. */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { checkJiraHost, JIRA_HOST_FORM } from "../../src/jira/host.ts";
import { jiraTools } from "../../src/tools/all.ts";
import { jiraContext } from "./helpers.ts";

describe("checkJiraHost", () => {
  const invalid: Array<[string, string]> = [
    ["http://", "has no host name"],
    ["https://", "has no host name"],
    ["https:", "has no host name"],
    ["   ", "is empty"],
    ["acme .atlassian.net", "contains a space"],
    ["https://acme.atlassian.net /jira", "contains a space"],
    ["acme_corp.atlassian.net", "not allowed in a host name"],
    ["https://ac%6De.atlassian.net", "not allowed in a host name"],
    ["exa$mple.com", "not allowed in a host name"],
    ["jira.example.com:port", "not allowed in a host name"],
    ["ftp://jira.example.com", "must be an http(s) address"],
    ["jira.example.com\u001b]52;c;x\u0007", "control character"],
  ];
  for (const [value, why] of invalid) {
    test(`${JSON.stringify(value)} is invalid_config (${why}), with the expected form`, () => {
      const checked = checkJiraHost(value);
      if (checked.ok) throw new Error(`accepted ${value}`);
      expect(checked.error.code).toBe("invalid_config");
      expect(checked.error.message).toContain(why);
      expect(checked.error.hint).toBe(JIRA_HOST_FORM);
      // The value itself is not echoed (it may hold a password).
      expect(checked.error.message).not.toContain(value.trim() || "\u0000");
    });
  }

  const sites: Array<[string, string, boolean]> = [
    ["acme.atlassian.net", "https://acme.atlassian.net", false],
    ["https://acme.atlassian.net/", "https://acme.atlassian.net", false],
    ["http://jira.example.com:8080", "http://jira.example.com:8080", false],
    ["localhost:8080", "https://localhost:8080", false],
    ["192.168.1.100:8080", "https://192.168.1.100:8080", false],
    ["https://jira.example.com/jira", "https://jira.example.com/jira", false],
    // Pasted from the browser: Cloud keeps only the site…
    ["https://acme.atlassian.net/jira/software/projects/SHOP/boards/1", "https://acme.atlassian.net", true],
    ["https://acme.atlassian.net/browse/SHOP-1?focusedCommentId=3", "https://acme.atlassian.net", true],
    // …Data Center keeps its context path.
    ["https://jira.example.com/jira/browse/SHOP-1", "https://jira.example.com/jira", true],
    ["https://jira.example.com/tools/jira/secure/Dashboard.jspa", "https://jira.example.com/tools/jira", true],
    ["https://jira.example.com/browse/SHOP-1#comment", "https://jira.example.com", true],
  ];
  for (const [value, apiRoot, noted] of sites) {
    test(`${value} → ${apiRoot}${noted ? ", with a note" : ""}`, () => {
      const checked = checkJiraHost(value);
      if (!checked.ok) throw new Error(checked.error.message);
      expect(checked.value.base.apiRoot).toBe(apiRoot);
      if (noted) expect(checked.value.note).toContain(apiRoot);
      else expect(checked.value.note).toBeNull();
    });
  }

  test("the note never shows a password written into JIRA_HOST", () => {
    const checked = checkJiraHost("https://me:s3cret@acme.atlassian.net/browse/SHOP-1");
    if (!checked.ok) throw new Error(checked.error.message);
    expect(checked.value.note).not.toContain("s3cret");
  });
});

describe("through the Jira tools", () => {
  test("a bad JIRA_HOST answers invalid_config before anything is sent", async () => {
    let sent = 0;
    const made = jiraContext({ env: { JIRA_HOST: "https://", JIRA_PERSONAL_TOKEN: "p" } });
    try {
      const ctx = {
        ...made.ctx,
        fetch: (() => Promise.resolve(new Response(String(++sent)))) as unknown as typeof fetch,
      };
      const result = await jiraTools
        .find((t) => t.name === "get_jira_issue")
        ?.handler({ issue_key: "SHOP-1" }, ctx, {
          signal: new AbortController().signal,
        });
      expect(result?.ok).toBe(false);
      expect(!result?.ok && result?.error.code).toBe("invalid_config");
      expect(sent).toBe(0);
    } finally {
      made.cleanup();
    }
  });

  test("a failed name lookup names the host, as a DNS failure", async () => {
    const made = jiraContext({ env: { JIRA_HOST: "jira.example.invalid", JIRA_PERSONAL_TOKEN: "p" } });
    try {
      const dnsFailure = (() =>
        Promise.reject(
          Object.assign(new TypeError("getaddrinfo ENOTFOUND jira.example.invalid"), { code: "ENOTFOUND" }),
        )) as unknown as typeof fetch;
      const client = await { ...made.ctx, fetch: dnsFailure }.jira();
      if (!client.ok) throw new Error(client.error.message);
      const answer = await client.value.request(
        { method: "GET", path: "/rest/api/2/myself", schema: v.unknown() },
        new AbortController().signal,
      );
      expect(!answer.ok && answer.error.message).toContain("jira.example.invalid did not resolve (ENOTFOUND)");
    } finally {
      made.cleanup();
    }
  });
});

test("a Data Center context path kept from a pasted address is where requests go", async () => {
  const seen: URL[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request): Response {
      seen.push(new URL(request.url));
      return Response.json({ name: "alice" });
    },
  });
  const made = jiraContext({
    env: { JIRA_HOST: `http://127.0.0.1:${server.port}/tools/jira/browse/SHOP-1`, JIRA_PERSONAL_TOKEN: "p" },
  });
  try {
    const client = await made.ctx.jira();
    if (!client.ok) throw new Error(client.error.message);
    const answer = await client.value.request(
      { method: "GET", path: "/rest/api/2/myself", query: { fields: "a,b c" }, schema: v.object({ name: v.string() }) },
      new AbortController().signal,
    );
    expect(answer.ok).toBe(true);
    expect(seen[0]?.pathname).toBe("/tools/jira/rest/api/2/myself");
    expect(seen[0]?.searchParams.get("fields")).toBe("a,b c");
  } finally {
    server.stop(true);
    made.cleanup();
  }
});
