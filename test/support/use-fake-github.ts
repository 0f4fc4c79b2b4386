/**
 * The fake GitHub's life cycle in a test file, declared once: started before the file's first
 * test, emptied between tests, stopped after the last. Call it at the top of a file (or of a
 * describe block), before any hook that reads the fake's URL: hooks run in the order declared.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { FakeGitHub, type FakeGitHubOptions } from "./fake-github.ts";

export interface UseFakeGitHubOptions extends FakeGitHubOptions {
  /**
   * Empty the fake after every test (its requests, injections, repositories; latency back to the
   * start value). Default true. Files that seed data once for all their tests turn it off.
   */
  resetAfterEach?: boolean;
}

export function useFakeGitHub(options: UseFakeGitHubOptions = {}): FakeGitHub {
  const { resetAfterEach = true, ...fakeOptions } = options;
  const fake = new FakeGitHub(fakeOptions);
  beforeAll(() => fake.listen());
  if (resetAfterEach) {
    afterEach(async () => {
      // A call a test cancelled can still have requests under way; they must not count for the next test.
      await fake.settled();
      fake.reset();
      fake.repos.clear();
      fake.latencyMs = fakeOptions.latencyMs ?? 0;
    });
  }
  afterAll(() => fake.stop());
  return fake;
}
