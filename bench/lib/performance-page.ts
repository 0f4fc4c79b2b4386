import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `section` into docs/performance.md between the `bench:<name>` markers, appended when they are absent. */
export function writePerformanceSection(name: string, section: string): void {
  const docs = join(import.meta.dir, "..", "..", "docs", "performance.md");
  const [markStart, markEnd] = [`<!-- bench:${name} start -->`, `<!-- bench:${name} end -->`];
  const marked = `${markStart}\n${section}\n${markEnd}`;
  const page = existsSync(docs) ? readFileSync(docs, "utf8") : "# Performance\n";
  const start = page.indexOf(markStart);
  const end = page.indexOf(markEnd);
  writeFileSync(
    docs,
    start >= 0 && end > start
      ? `${page.slice(0, start)}${marked}${page.slice(end + markEnd.length)}`
      : `${page.trimEnd()}\n\n${marked}\n`,
  );
}
