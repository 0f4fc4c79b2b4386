import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parsePackedRefs } from "../../src/git/refs.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const LONG = "d".repeat(64);

describe("parsePackedRefs", () => {
  test("reads the refs, skipping the header and peeled lines", () => {
    const refs = parsePackedRefs(
      enc(
        `# pack-refs with: peeled fully-peeled sorted \n${A} refs/heads/main\n${B} refs/tags/v1\n^${C}\n${C} refs/heads/feature/x\n`,
      ),
    );
    expect([...refs]).toEqual([
      ["refs/heads/main", A],
      ["refs/tags/v1", B],
      ["refs/heads/feature/x", C],
    ]);
  });

  test("accepts SHA-256 ids, upper-case hex (lower-cased), no header, no final newline", () => {
    const refs = parsePackedRefs(enc(`${LONG} refs/heads/a\n${A.toUpperCase()} refs/heads/b`));
    expect(refs.get("refs/heads/a")).toBe(LONG);
    expect(refs.get("refs/heads/b")).toBe(A);
  });

  test("skips malformed lines and keeps the rest", () => {
    const text = [
      `${A} refs/heads/good`,
      `${A.slice(1)} refs/heads/short-oid`,
      `${A}  refs/heads/two-spaces`,
      `${A}\trefs/heads/tab`,
      `${A}refs/heads/no-space`,
      `${A} refs/heads/bad..name`,
      `${A} refs/heads/crlf\r`,
      `^${B}`, // follows a skipped line: not attached to anything
      `^${B.slice(2)}`,
      "garbage",
      "",
      `${C} refs/heads/also-good`,
    ].join("\n");
    const refs = parsePackedRefs(enc(text));
    expect([...refs.keys()]).toEqual(["refs/heads/good", "refs/heads/also-good"]);
    expect(refs.get("refs/heads/good")).toBe(A);
  });

  test("skips names that are not UTF-8", () => {
    const bytes = new Uint8Array([...enc(`${A} refs/heads/bad`), 0xff, 0xfe, ...enc(`\n${B} refs/heads/ünï\n`)]);
    expect([...parsePackedRefs(bytes)]).toEqual([["refs/heads/ünï", B]]);
  });

  test("empty file", () => {
    expect(parsePackedRefs(new Uint8Array()).size).toBe(0);
  });
});

describe("parsePackedRefs on git's own packed-refs", () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = makeRepo({ commit: true });
    repo.git("branch", "feature/a/b");
    repo.git("branch", "fix/ünïcødé");
    repo.git("tag", "light");
    repo.git("tag", "-a", "-m", "annotated", "v1.0");
    repo.commit("second");
    repo.git("tag", "-a", "-m", "tag of a tag", "v1.0-outer", "v1.0");
    repo.git("pack-refs", "--all");
  });
  afterAll(() => repo.cleanup());

  test("matches git for-each-ref, annotated tags included", () => {
    const refs = parsePackedRefs(readFileSync(repo.path(".git", "packed-refs")));
    const expected = repo
      .git("for-each-ref", "--format=%(refname) %(objectname) %(objecttype)")
      .split("\n")
      .map((line) => line.split(" ") as [string, string, string]);
    expect(refs.size).toBe(expected.length);
    expect(expected.filter(([, , type]) => type === "tag").length).toBe(2);
    // git writes a ^ line after every annotated tag's, which must not be read as a ref.
    for (const [refname, oid] of expected) expect(refs.get(refname)).toBe(oid);
  });
});
