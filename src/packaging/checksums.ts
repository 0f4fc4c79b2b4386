/**
 * `sha256sums.txt` in the format `sha256sum` writes and `sha256sum -c` (or `shasum -a 256 -c`)
 * checks: one `<hex>  <file name>` line per file, sorted by name.
 */
export function renderChecksums(sums: ReadonlyMap<string, string>): string {
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, hex]) => `${hex}  ${name}\n`)
    .join("");
}

/** Reads such a file back: file name → hex. */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match) sums.set(match[2] as string, match[1] as string);
  }
  return sums;
}
