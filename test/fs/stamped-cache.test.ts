import { describe, expect, test } from "bun:test";
import { type FileStamp, isSettled, RACY_WINDOW_MS, StampedCache, sameStamp } from "../../src/fs/stamped-cache.ts";

const T0 = 1_750_000_000_000;
const stamp = (changedAt: number, ino = 7, size = 41): FileStamp => ({
  mtimeMs: changedAt,
  ctimeMs: changedAt,
  size,
  ino,
});

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

describe("StampedCache", () => {
  test("a value stored under settled stamps is handed out while they are unchanged", () => {
    const cache = new StampedCache<string>(8, () => T0);
    const old = stamp(T0 - 60_000);
    cache.set("HEAD", "main", [old]);
    expect(cache.get("HEAD", (s) => sameStamp(s, old))).toBe("main");
    expect(cache.get("HEAD", (s) => sameStamp(s, stamp(T0 - 60_000, 8)))).toBeUndefined();
  });

  test("a value stored under a racy stamp is never handed out, even with the stamp unchanged", () => {
    // A second write in the same clock tick, of the same size, leaves the stamp as it was.
    const cache = new StampedCache<string>(8, () => T0);
    const racy = stamp(T0 - 2);
    cache.set("HEAD", "main", [racy]);
    expect(cache.get("HEAD", (s) => sameStamp(s, racy))).toBeUndefined();
  });

  test("the stamp is judged when it is stored: stored again later, the same stamp is trusted", () => {
    let now = T0;
    const cache = new StampedCache<string>(8, () => now);
    const changed = stamp(T0 - 5);
    cache.set("config", "a", [changed]);
    expect(cache.get("config", () => true)).toBeUndefined();
    now = T0 + RACY_WINDOW_MS + 1;
    expect(cache.get("config", () => true)).toBeUndefined();
    cache.set("config", "a", [changed]);
    expect(cache.get("config", () => true)).toBe("a");
  });

  test("every stamp must be settled and unchanged, checked in order until one fails", () => {
    const cache = new StampedCache<string>(8, () => T0);
    const old = stamp(T0 - 60_000);
    cache.set("repo", "location", [old, stamp(T0 - 1)]);
    expect(cache.get("repo", () => true)).toBeUndefined();
    cache.set("repo", "location", [old, old, old]);
    const checked: number[] = [];
    expect(
      cache.get("repo", (s) => {
        checked.push(s.ino);
        return false;
      }),
    ).toBeUndefined();
    expect(checked).toEqual([7]);
  });

  test("bounded: the least recently used entry goes first", () => {
    const cache = new StampedCache<number>(2, () => T0);
    const old = stamp(T0 - 60_000);
    cache.set("a", 1, [old]);
    cache.set("b", 2, [old]);
    expect(cache.get("a", () => true)).toBe(1);
    cache.set("c", 3, [old]);
    expect(cache.size).toBe(2);
    expect(cache.get("b", () => true)).toBeUndefined();
    expect(cache.get("a", () => true)).toBe(1);
    expect(cache.get("c", () => true)).toBe(3);
  });
});
