import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mergeText } from "../../../src/git/merge/text-merge.ts";
import { gitEnv, makeSandbox } from "../../support/git-repo.ts";

const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());

/** git's own text merge: `git merge-file -p ours base theirs`, its exit code the number of conflicts. */
function gitMergeFile(base: string, ours: string, theirs: string) {
  const [o, a, b] = ["base", "ours", "theirs"].map((name) => join(sandbox.dir, name)) as [string, string, string];
  writeFileSync(o, base, "latin1");
  writeFileSync(a, ours, "latin1");
  writeFileSync(b, theirs, "latin1");
  const result = Bun.spawnSync(["git", "merge-file", "-p", a, o, b], {
    env: gitEnv(sandbox.dir),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { conflicts: result.exitCode, merged: result.stdout.toString("latin1") };
}

const text = (changes: Record<number, string>, count = 12) =>
  Array.from({ length: count }, (_, i) => changes[i + 1] ?? `line ${i + 1}\n`).join("");
const bytes = (s: string) => Buffer.from(s, "latin1");

const cases: [string, string, string, string][] = [
  ["far apart", text({}), text({ 2: "ours\n" }), text({ 10: "theirs\n" })],
  ["same line", text({}), text({ 6: "ours\n" }), text({ 6: "theirs\n" })],
  ["adjacent lines", text({}), text({ 6: "ours\n" }), text({ 7: "theirs\n" })],
  ["one line between", text({}), text({ 6: "ours\n" }), text({ 8: "theirs\n" })],
  ["the same change", text({}), text({ 6: "both\n" }), text({ 6: "both\n" })],
  ["whitespace only", text({}), text({ 6: "line 6 \n" }), text({ 6: "line  6\n" })],
  ["CRLF against LF", text({}), text({ 6: "line 6\r\n" }), text({ 6: "other\n" })],
  ["no newline at the end", "a\nb\nc", "a\nb\nc\n", "a\nb\nC"],
  ["insertions at one place", text({}), text({ 4: "line 4\nours\n" }), text({ 4: "line 4\ntheirs\n" })],
  ["deletion beside an edit", text({}), text({ 5: "" }), text({ 6: "theirs\n" })],
  ["deletions one line apart", text({}), text({ 2: "", 3: "" }), text({ 5: "" })],
  ["an insertion right before an edit", text({}), text({ 4: "line 4\nours\n" }), text({ 5: "theirs\n" })],
  ["edits at both ends and the middle", text({}), text({ 1: "o1\n", 12: "o12\n" }), text({ 6: "t6\n" })],
];

for (const [name, base, ours, theirs] of cases) {
  test(`as git merge-file: ${name}`, () => {
    const git = gitMergeFile(base, ours, theirs);
    const merged = mergeText(bytes(base), bytes(ours), bytes(theirs));
    if (git.conflicts === 0) expect(merged).toEqual({ merged: bytes(git.merged) });
    else expect("conflicts" in merged && merged.conflicts.length).toBe(git.conflicts);
  });
}

test("a conflict's lines are the branch's (theirs) lines", () => {
  const merged = mergeText(bytes(text({})), bytes(text({ 3: "ours\n" })), bytes(text({ 3: "t1\nt2\nt3\n" })));
  expect(merged).toEqual({ conflicts: [{ start: 3, end: 5 }] });
});

test("thousands of repeated lines changed on both sides are refused, not merged for seconds", () => {
  const same = (n: number, changes: Record<number, string>) =>
    Array.from({ length: n }, (_, i) => changes[i] ?? "x\n").join("");
  const [base, ours, theirs] = [
    same(3000, {}),
    same(3000, { 5: "a\n", 2990: "a\n" }),
    same(3000, { 10: "b\n", 2980: "b\n" }),
  ];
  expect(mergeText(bytes(base), bytes(ours), bytes(theirs))).toEqual({ tooCostly: true });
});
