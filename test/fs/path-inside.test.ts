import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvesInside } from "../../src/fs/path-inside.ts";

describe("resolvesInside", () => {
  const root = mkdtempSync(join(tmpdir(), "twig-mcp-inside-"));
  const base = join(root, "repo");
  const outside = join(root, "secret");
  mkdirSync(join(base, ".twig"), { recursive: true });
  mkdirSync(join(base, "kept"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(base, ".twig", "state.json"), "{}");
  writeFileSync(join(outside, "state.json"), "{}");
  symlinkSync(outside, join(base, "linked-dir"));
  symlinkSync(join(outside, "state.json"), join(base, "kept", "linked-file"));
  symlinkSync(join(base, ".twig", "state.json"), join(base, "kept", "link-inside"));
  symlinkSync(base, join(root, "repo-link"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("a plain file below its base, through a base that is itself a link", async () => {
    expect(await resolvesInside(join(base, ".twig", "state.json"), base)).toBe(true);
    expect(await resolvesInside(join(root, "repo-link", ".twig", "state.json"), join(root, "repo-link"))).toBe(true);
  });

  test("a link at any depth below the base is followed: out is refused, in is not", async () => {
    expect(await resolvesInside(join(base, "linked-dir", "state.json"), base)).toBe(false);
    expect(await resolvesInside(join(base, "kept", "linked-file"), base)).toBe(false);
    expect(await resolvesInside(join(base, "kept", "link-inside"), base)).toBe(true);
  });

  test("a `..` after a link is judged where the kernel takes it, not by the text", async () => {
    // `linked-dir/..` is `root` on disk, so this names `root/secret/state.json`, while its text,
    // normalised, names `base/secret/state.json`, which does not exist.
    const path = `${join(base, "linked-dir")}/../secret/state.json`;
    expect(await resolvesInside(path, base)).toBe(false);
  });

  test("a path that resolves nowhere counts as inside; one outside by its text does not", async () => {
    expect(await resolvesInside(join(base, "missing", "state.json"), base)).toBe(true);
    expect(await resolvesInside(join(outside, "state.json"), base)).toBe(false);
  });
});
