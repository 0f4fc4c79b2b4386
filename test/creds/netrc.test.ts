import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { findNetrcEntry, lookupNetrc, parseNetrc } from "../../src/creds/netrc.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const lookup = (text: string, machine: string) => findNetrcEntry(parseNetrc(text), [machine]);

describe("parseNetrc", () => {
  test.each([
    ["machine example.com login u password p", "example.com", ["u", "p"]],
    ["machine x\n  login u\n  password p\n", "x", ["u", "p"]],
    ["machine a login u1 password p1\nmachine b login u2 password p2", "b", ["u2", "p2"]],
    ["machine a login first password 1\nmachine a login second password 2", "a", ["first", "1"]],
    ["machine GitHub.com login u password p", "github.com", ["u", "p"]],
    ['machine h login "a user" password "p \\" q"', "h", ["a user", 'p " q']],
    ["# comment line\nmachine h # trailing comment\n login u password p", "h", ["u", "p"]],
    ["machine h login u account acct password p", "h", ["u", "p"]],
    ["machine other login o password q\ndefault login d password dp", "h", ["d", "dp"]],
    ["macdef init\nmachine h login evil password evil\n\nmachine h login u password p", "h", ["u", "p"]],
  ])("%p → %p", (text, machine, expected) => {
    const entry = lookup(text, machine);
    expect(entry && [entry.login, entry.password]).toEqual(expected);
  });

  test("an incomplete entry does not leak its login into the next one (twig's bug)", () => {
    expect(lookup("machine a login u1\nmachine b password p2", "b")).toBeNull();
  });

  test("an entry without a password is not a credential", () => {
    expect(lookup("machine h login u", "h")).toBeNull();
  });

  test("a keyword at the end of the file is ignored", () => {
    expect(lookup("machine h login u password", "h")).toBeNull();
    expect(parseNetrc("machine")).toEqual([]);
  });

  test("never throws on arbitrary input, and round-trips simple entries", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseNetrc(text);
      }),
    );
    const word = fc
      .stringMatching(/^[A-Za-z0-9._@-]{1,20}$/)
      .filter((w) => !["machine", "login", "password", "account", "macdef", "default"].includes(w));
    fc.assert(
      fc.property(word, word, word, (machine, login, password) => {
        const entry = lookup(`machine ${machine}\n\tlogin ${login}\n\tpassword ${password}\n`, machine);
        expect(entry).toMatchObject({ login, password });
      }),
    );
  });
});

describe("lookupNetrc", () => {
  const home = mkdtempSync(join(tmpdir(), "twig-netrc-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test("a missing file is no entry", async () => {
    const result = await lookupNetrc({ home: join(home, "none"), files: new CachedFileReader() }, ["github.com"]);
    expect(result).toEqual({ ok: true, value: null });
  });

  test("reads <home>/.netrc and never echoes its content in errors", async () => {
    writeFileSync(join(home, ".netrc"), "machine github.com login me password s3cret\n");
    const files = new CachedFileReader();
    const result = await lookupNetrc({ home, files }, ["github.com"]);
    expect(result.ok && result.value?.password).toBe("s3cret");
    writeFileSync(join(home, ".netrc"), new Uint8Array([0x6d, 0xff, 0x73, 0x33, 0x63]));
    const broken = await lookupNetrc({ home, files }, ["github.com"]);
    expect(broken.ok).toBe(false);
    expect(JSON.stringify(broken)).not.toContain("s3c");
  });
});
