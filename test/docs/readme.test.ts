import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const read = (...path: string[]) => readFileSync(join(import.meta.dir, "..", "..", ...path), "utf8");
const readme = read("README.md");

test("the README stays a first-ten-minutes page: at most 25 KB, the detail lives in docs/", () => {
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25 * 1024);
});

test("the quick start is two commands on a fresh clone, and the test command is the one CI runs", () => {
  expect(readme).toContain("```sh\nbun install && bun run build && ./dist/twig-mcp demo\nbun run test\n```");
  expect(read(".ci", "run")).toMatch(/^bun run test 2>&1 \| tee "\$log"$/m);
  expect(JSON.parse(read("package.json")).scripts.test).toBe("bun test --parallel --no-isolate");
  // `bun run build` must still write the binary the quick start runs.
  expect(readFileSync(join(import.meta.dir, "..", "..", "build.ts"), "utf8")).toContain("host binary at dist/twig-mcp");
});
