import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readSshHostNames } from "../../src/creds/ssh-config.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A temporary HOME holding `files` (paths relative to it), and the alias lookup read from it. */
async function lookup(files: Record<string, string | Uint8Array>) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-ssh-")));
  homes.push(home);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return readSshHostNames({ home, files: new CachedFileReader() });
}

describe("~/.ssh/config HostName for an alias", () => {
  test("a Host block's HostName, keywords in any case, `=` or blanks, quotes and comments", async () => {
    const hostName = await lookup({
      ".ssh/config": [
        "# work account",
        "Host github-work",
        "  HostName github.com",
        "  IdentityFile ~/.ssh/id_work",
        'host "quoted"  # trailing comment',
        "\thostname=Quoted.Example",
        "HOST spaced",
        "  HostName   =   spaced.example",
      ].join("\n"),
    });
    expect(hostName("github-work")).toBe("github.com");
    expect(hostName("GitHub-Work")).toBe("github.com");
    expect(hostName("quoted")).toBe("quoted.example");
    expect(hostName("spaced")).toBe("spaced.example");
    expect(hostName("github.com")).toBeNull();
  });

  test("wildcards and negation as ssh_config(5): the first value found wins", async () => {
    const hostName = await lookup({
      ".ssh/config": [
        "Host gh-* !gh-legacy",
        "  HostName github.com",
        "Host gh-legacy",
        "  HostName ghe.corp.example",
        "Host gh-?",
        "  HostName never.example",
        "Host *.internal",
        "  HostName %h.corp.example",
        "Host odd",
        "  HostName %p.example",
        "Host *",
        "  HostName fallback.example",
      ].join("\n"),
    });
    expect(hostName("gh-work")).toBe("github.com");
    expect(hostName("gh-x")).toBe("github.com");
    expect(hostName("gh-legacy")).toBe("ghe.corp.example");
    expect(hostName("git.internal")).toBe("git.internal.corp.example");
    // A token only ssh can expand: the alias is kept rather than guessed.
    expect(hostName("odd")).toBeNull();
    expect(hostName("anything")).toBe("fallback.example");
  });

  test("lines before the first Host apply to every host; Match blocks never apply", async () => {
    expect((await lookup({ ".ssh/config": "HostName everyone.example\nHost a\n  HostName a.example\n" }))("a")).toBe(
      "everyone.example",
    );
    const hostName = await lookup({
      ".ssh/config": 'Match host work exec "true"\n  HostName github.com\nHost work\n  HostName ghe.example\n',
    });
    expect(hostName("work")).toBe("ghe.example");
  });

  test("Include: relative to ~/.ssh, globbed, read in place inside its Host block", async () => {
    const hostName = await lookup({
      ".ssh/config": "Include config.d/*.conf\nHost scoped\n  Include scoped.conf\n",
      ".ssh/config.d/10-work.conf": "Host github-work\n  HostName github.com\n",
      ".ssh/config.d/20-other.conf": "Host github-work other\n  HostName other.example\n",
      ".ssh/config.d/ignored.txt": "Host txt\n  HostName txt.example\n",
      ".ssh/scoped.conf": "HostName scoped.example\n",
    });
    expect(hostName("github-work")).toBe("github.com");
    expect(hostName("other")).toBe("other.example");
    expect(hostName("txt")).toBeNull();
    expect(hostName("scoped")).toBe("scoped.example");
    // The included file's lines before its own Host line apply only inside `Host scoped`.
    expect(hostName("unscoped")).toBeNull();
  });

  test("Include reads nothing outside ~/.ssh, and a loop of includes ends", async () => {
    const hostName = await lookup({
      ".ssh/config": "Include ../outside.conf\nInclude ~/outside.conf\nInclude /etc/ssh/ssh_config\nInclude config\n",
      "outside.conf": "Host x\n  HostName outside.example\n",
    });
    expect(hostName("x")).toBeNull();
  });

  test("no config, an empty one, or one that is not text: no HostName", async () => {
    expect((await lookup({}))("github-work")).toBeNull();
    expect((await lookup({ ".ssh/config": "" }))("github-work")).toBeNull();
    const latin1 = Buffer.concat([Buffer.from("Host a\n  HostName caf"), Buffer.from([0xe9])]);
    expect((await lookup({ ".ssh/config": latin1 }))("a")).toBeNull();
  });
});
