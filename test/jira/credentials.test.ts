import { afterEach, describe, expect, test } from "bun:test";
import { type ResolvedJiraCredential, resolveJiraCredential } from "../../src/creds/credentials.ts";
import { resolveJiraSetup } from "../../src/jira/client.ts";
import { type JiraTestContext, jiraContext } from "./helpers.ts";

let current: JiraTestContext | null = null;
function context(options: Parameters<typeof jiraContext>[0]) {
  current = jiraContext(options);
  return current.ctx;
}
afterEach(() => {
  current?.cleanup();
  current = null;
});

const basic = (user: string, token: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${token}`, "utf8").toString("base64")}`,
  token,
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, token });
/** What a request would send: the header, and the token scrubbed from errors. */
const credential = ({ authorization, token }: ResolvedJiraCredential) => ({ authorization, token });

describe("resolveJiraCredential", () => {
  test("netrc entry for the host wins", async () => {
    const ctx = context({
      netrc:
        "machine atlassian.net login fallback@example.com password fb\nmachine jira.example.com login a@example.com password tok\n",
      env: { JIRA_EMAIL: "env@example.com", JIRA_API_TOKEN: "envtok" },
    });
    const found = await resolveJiraCredential(ctx, "jira.example.com");
    expect(found).toEqual({
      ok: true,
      value: {
        ...basic("a@example.com", "tok"),
        source: '~/.netrc (machine "jira.example.com")',
      },
    });
  });

  test("falls back to machine atlassian.net, even for other hosts (as twig)", async () => {
    const ctx = context({ netrc: "machine atlassian.net\n  login fb@example.com\n  password fbtok\n" });
    const found = await resolveJiraCredential(ctx, "jira.example.com:8443");
    expect(found.ok && credential(found.value)).toEqual(basic("fb@example.com", "fbtok"));
    expect(found.ok && found.value.source).toBe('~/.netrc (machine "atlassian.net")');
  });

  test("JIRA_EMAIL (or JIRA_USERNAME) with JIRA_API_TOKEN", async () => {
    const a = await resolveJiraCredential(
      context({ env: { JIRA_EMAIL: "e@example.com", JIRA_USERNAME: "ignored", JIRA_API_TOKEN: " tok \n" } }),
      "x.example.com",
    );
    expect(a.ok && credential(a.value)).toEqual(basic("e@example.com", "tok"));
    expect(a.ok && a.value.source).toBe("$JIRA_EMAIL and $JIRA_API_TOKEN");
    current?.cleanup();
    const b = await resolveJiraCredential(
      context({ env: { JIRA_USERNAME: "jdoe", JIRA_API_TOKEN: "tok" } }),
      "x.example.com",
    );
    expect(b.ok && credential(b.value)).toEqual(basic("jdoe", "tok"));
    expect(b.ok && b.value.source).toBe("$JIRA_USERNAME and $JIRA_API_TOKEN");
  });

  test("JIRA_PERSONAL_TOKEN is a bearer token", async () => {
    const found = await resolveJiraCredential(context({ env: { JIRA_PERSONAL_TOKEN: "pat-123" } }), "x.example.com");
    expect(found.ok && credential(found.value)).toEqual(bearer("pat-123"));
    expect(found.ok && found.value.authorization).toBe("Bearer pat-123");
  });

  test("basic beats bearer when both are configured", async () => {
    const found = await resolveJiraCredential(
      context({ env: { JIRA_EMAIL: "e@example.com", JIRA_API_TOKEN: "t", JIRA_PERSONAL_TOKEN: "pat" } }),
      "x.example.com",
    );
    expect(found.ok && credential(found.value)).toEqual(basic("e@example.com", "t"));
  });

  test("a netrc default entry is used only after every explicit source", async () => {
    const netrc = "default login d@example.com password dtok\n";
    const withEnv = await resolveJiraCredential(
      context({ netrc, env: { JIRA_PERSONAL_TOKEN: "pat" } }),
      "x.example.com",
    );
    expect(withEnv.ok && credential(withEnv.value)).toEqual(bearer("pat"));
    current?.cleanup();
    const alone = await resolveJiraCredential(context({ netrc }), "x.example.com");
    expect(alone.ok && credential(alone.value)).toEqual(basic("d@example.com", "dtok"));
    expect(alone.ok && alone.value.source).toBe("~/.netrc (default entry)");
  });

  test("missing everywhere: credentials_missing naming every place looked, no secret", async () => {
    const found = await resolveJiraCredential(
      context({ netrc: "machine other.example.com login x password hunter2\n", env: { JIRA_API_TOKEN: "hunter3" } }),
      "jira.example.com",
    );
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.error.code).toBe("credentials_missing");
    expect(found.error.message).toBe(
      'Jira credentials not found. Looked in: ~/.netrc (machine "jira.example.com"), ~/.netrc (machine "atlassian.net"), ' +
        "$JIRA_EMAIL or $JIRA_USERNAME with $JIRA_API_TOKEN, $JIRA_PERSONAL_TOKEN " +
        "($JIRA_API_TOKEN is set but $JIRA_EMAIL is not).",
    );
    expect(found.error.hint).toContain("machine jira.example.com login <email> password <api-token>");
    expect(JSON.stringify(found)).not.toContain("hunter");
  });

  test("userinfo in the machine name is not echoed", async () => {
    const found = await resolveJiraCredential(context({}), "me:pa55word@jira.example.com");
    expect(found.ok).toBe(false);
    expect(JSON.stringify(found)).not.toContain("pa55word");
  });

  test("an unreadable .netrc does not hide environment credentials, and is reported otherwise", async () => {
    const ctx = context({});
    const { mkdirSync } = await import("node:fs");
    mkdirSync(`${ctx.home}/.netrc`);
    const withEnv = await resolveJiraCredential({ ...ctx, env: { JIRA_PERSONAL_TOKEN: "pat" } }, "x.example.com");
    expect(withEnv.ok).toBe(true);
    const without = await resolveJiraCredential(ctx, "x.example.com");
    expect(!without.ok && without.error.message).toContain("is a directory");
  });
});

describe("resolveJiraSetup", () => {
  test("JIRA_HOST unset or empty → credentials_missing with twig's message", async () => {
    for (const env of [{}, { JIRA_HOST: "" }] as Record<string, string>[]) {
      const setup = await resolveJiraSetup(context({ env }));
      expect(setup.ok).toBe(false);
      expect(!setup.ok && setup.error.code).toBe("credentials_missing");
      expect(!setup.ok && setup.error.message).toBe("Jira host environment variable 'JIRA_HOST' not set");
      current?.cleanup();
    }
  });

  test("JIRA_HOST blank or unusable → invalid_config explaining why", async () => {
    const blank = await resolveJiraSetup(context({ env: { JIRA_HOST: "   " } }));
    expect(!blank.ok && blank.error.code).toBe("invalid_config");
    expect(!blank.ok && blank.error.message).toBe("JIRA_HOST is empty");
    current?.cleanup();
    const bad = await resolveJiraSetup(context({ env: { JIRA_HOST: "exa$mple.com", JIRA_PERSONAL_TOKEN: "p" } }));
    expect(!bad.ok && bad.error.code).toBe("invalid_config");
  });

  test("a password in an unparseable JIRA_HOST is not echoed", async () => {
    for (const host of ["me:pa55word@exa mple.com", "https://me:pa55word@exa mple.com"]) {
      const setup = await resolveJiraSetup(context({ env: { JIRA_HOST: host } }));
      expect(!setup.ok && setup.error.code).toBe("invalid_config");
      expect(JSON.stringify(setup)).not.toContain("pa55word");
      current?.cleanup();
    }
  });

  test("netrc machine is normalize_host of the JIRA_HOST base URL", async () => {
    const ctx = context({
      env: { JIRA_HOST: "https://Jira.Example.com:8443/" },
      netrc: "machine jira.example.com:8443 login a@example.com password tok\n",
    });
    const setup = await resolveJiraSetup(ctx);
    expect(setup.ok && setup.value.base.apiRoot).toBe("https://jira.example.com:8443");
    expect(setup.ok && setup.value.auth.source).toBe('~/.netrc (machine "jira.example.com:8443")');
  });

  test("bare Cloud host", async () => {
    const ctx = context({
      env: { JIRA_HOST: "company.atlassian.net" },
      netrc: "machine company.atlassian.net login a@example.com password tok\n",
    });
    const setup = await resolveJiraSetup(ctx);
    expect(setup.ok && setup.value.base.baseUrl).toBe("https://company.atlassian.net");
    expect(setup.ok && setup.value.base.hostname).toBe("company.atlassian.net");
  });
});
