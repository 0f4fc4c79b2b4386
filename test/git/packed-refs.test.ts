import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPackedRef, listPackedRefs } from "../../src/git/packed-refs.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const LONG = "d".repeat(64);
const SORTED = "# pack-refs with: peeled fully-peeled sorted \n";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A directory standing for a common dir, holding only `packed-refs` with these bytes. */
function packed(content: string | Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "packed-refs-"));
  dirs.push(dir);
  writeFileSync(join(dir, "packed-refs"), content);
  return dir;
}

/** Every ref the file holds, in file order, as [name, id] pairs. */
function all(dir: string): [string, string][] {
  const listed = listPackedRefs(dir, "");
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value.map(({ refname, oid }) => [refname, oid]);
}

function find(dir: string, refname: string, stats = { bytesRead: 0 }): string | null {
  const found = findPackedRef(dir, refname, stats);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
}

describe("reading packed-refs lines", () => {
  test("reads the refs, skipping the header and peeled lines", () => {
    const dir = packed(`${SORTED}${A} refs/heads/feature/x\n${B} refs/heads/main\n${C} refs/tags/v1\n^${A}\n`);
    expect(all(dir)).toEqual([
      ["refs/heads/feature/x", A],
      ["refs/heads/main", B],
      ["refs/tags/v1", C],
    ]);
    expect(find(dir, "refs/tags/v1")).toBe(C);
  });

  test("accepts SHA-256 ids, upper-case hex (lower-cased), no header, no final newline", () => {
    const dir = packed(`${LONG} refs/heads/a\n${A.toUpperCase()} refs/heads/b`);
    expect(find(dir, "refs/heads/a")).toBe(LONG);
    expect(find(dir, "refs/heads/b")).toBe(A);
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
    const dir = packed(text);
    expect(all(dir).map(([name]) => name)).toEqual(["refs/heads/good", "refs/heads/also-good"]);
    expect(find(dir, "refs/heads/crlf")).toBeNull();
  });

  test("skips names that are not UTF-8", () => {
    const dir = packed(new Uint8Array([...enc(`${A} refs/heads/bad`), 0xff, 0xfe, ...enc(`\n${B} refs/heads/ünï\n`)]));
    expect(all(dir)).toEqual([["refs/heads/ünï", B]]);
  });

  test("an empty file, and no file at all, hold no refs", () => {
    expect(all(packed(""))).toEqual([]);
    const none = mkdtempSync(join(tmpdir(), "packed-refs-"));
    dirs.push(none);
    expect(find(none, "refs/heads/main")).toBeNull();
  });

  test("in a file without the sorted trait, the last line naming a ref wins, wherever it is", () => {
    const dir = packed(`${A} refs/heads/z\n${B} refs/heads/a\n${C} refs/heads/z\n`);
    expect(find(dir, "refs/heads/z")).toBe(C);
    expect(find(dir, "refs/heads/a")).toBe(B);
    expect(listPackedRefs(dir, "refs/heads/a")).toEqual({ ok: true, value: [{ refname: "refs/heads/a", oid: B }] });
  });
});

describe("a large sorted packed-refs (issue #47.4)", () => {
  // 100,000 remote refs around a few branches and tags: about 7 MB, bisected.
  const remotes = Array.from({ length: 100_000 }, (_, i) => `refs/remotes/origin/topic-${String(i).padStart(6, "0")}`);
  const heads = ["refs/heads/feature/a", "refs/heads/main", "refs/heads/ünï"];
  const tags = ["refs/tags/v1", "refs/tags/v2"];
  const names = [...heads, ...remotes, ...tags];
  const oidOf = (i: number) => i.toString(16).padStart(40, "0");
  let dir: string;
  beforeAll(() => {
    const lines = names.map((name, i) => `${oidOf(i)} ${name}\n${name.startsWith("refs/tags/") ? `^${A}\n` : ""}`);
    dir = packed(SORTED + lines.join(""));
  });

  test("finds the first, last, middle and every hundredth ref, and none that is not there", () => {
    for (let i = 0; i < names.length; i += 97) expect(find(dir, names[i] as string)).toBe(oidOf(i));
    expect(find(dir, names[0] as string)).toBe(oidOf(0));
    expect(find(dir, names.at(-1) as string)).toBe(oidOf(names.length - 1));
    for (const absent of [
      "refs/heads/a",
      "refs/remotes/origin/topic-",
      "refs/remotes/origin/topic-0000005",
      "refs/z",
    ]) {
      expect(find(dir, absent)).toBeNull();
    }
  });

  test("one lookup reads a few windows, not the file", () => {
    const stats = { bytesRead: 0 };
    expect(find(dir, "refs/remotes/origin/topic-054321", stats)).toBe(oidOf(heads.length + 54_321));
    const size = statSync(join(dir, "packed-refs")).size;
    expect(size).toBeGreaterThan(6_000_000);
    // 17 steps of 4 KiB, then at most two 64 KiB chunks.
    expect(stats.bytesRead).toBeLessThan(256 * 1024);
  });

  test("the branches are one range, read without the remote refs around them", () => {
    const stats = { bytesRead: 0 };
    const listed = listPackedRefs(dir, "refs/heads/", { stats });
    expect(listed).toEqual({ ok: true, value: heads.map((refname, i) => ({ refname, oid: oidOf(i) })) });
    expect(stats.bytesRead).toBeLessThan(256 * 1024);
    expect(listPackedRefs(dir, "refs/tags/")).toEqual({
      ok: true,
      value: tags.map((refname, i) => ({ refname, oid: oidOf(heads.length + remotes.length + i) })),
    });
  });

  test("the same file without the sorted trait is scanned, with the same answers", () => {
    const unsorted = packed(`# pack-refs with: peeled \n${names.map((name, i) => `${oidOf(i)} ${name}\n`).join("")}`);
    const stats = { bytesRead: 0 };
    expect(find(unsorted, "refs/remotes/origin/topic-054321", stats)).toBe(oidOf(heads.length + 54_321));
    expect(stats.bytesRead).toBeGreaterThanOrEqual(statSync(join(unsorted, "packed-refs")).size);
  });
});

describe("packed-refs of git's own", () => {
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

  test("matches git for-each-ref, annotated tags included, looked up one by one and listed", () => {
    const expected = repo
      .git("for-each-ref", "--format=%(refname) %(objectname) %(objecttype)")
      .split("\n")
      .map((line) => line.split(" ") as [string, string, string]);
    const common = repo.path(".git");
    expect(all(common)).toEqual(expected.map(([name, oid]) => [name, oid]));
    expect(expected.filter(([, , type]) => type === "tag").length).toBe(2);
    // git writes a ^ line after every annotated tag's, which must not be read as a ref.
    for (const [refname, oid] of expected) expect(find(common, refname)).toBe(oid);
    const branches = listPackedRefs(common, "refs/heads/");
    expect(branches.ok && branches.value.map((ref) => ref.refname)).toEqual(
      expected.map(([name]) => name).filter((name) => name.startsWith("refs/heads/")),
    );
  });
});
