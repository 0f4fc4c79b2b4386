import { describe, expect, test } from "bun:test";
import { isSettled, RACY_WINDOW_MS } from "../../src/fs/cached-file.ts";

const T0 = 1_750_000_000_000;
const stamp = (changedAt: number, ino = 7, size = 41) => ({ mtimeMs: changedAt, ctimeMs: changedAt, size, ino });

describe("isSettled", () => {
  test("a change older than the window is settled; one inside it, or in the future, is not", () => {
    expect(isSettled(stamp(T0 - RACY_WINDOW_MS - 1), T0)).toBe(true);
    expect(isSettled(stamp(T0 - RACY_WINDOW_MS + 1), T0)).toBe(false);
    expect(isSettled(stamp(T0), T0)).toBe(false);
    expect(isSettled(stamp(T0 + 60_000), T0)).toBe(false);
  });

  test("a recent status change counts even when mtime was set back (touch -d, archive extraction)", () => {
    expect(isSettled({ mtimeMs: T0 - 86_400_000, ctimeMs: T0 - 10, size: 1, ino: 1 }, T0)).toBe(false);
  });
});
