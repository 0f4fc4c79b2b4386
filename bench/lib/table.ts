/** Plain-text tables and number formatting for the bench's report. Pure functions, no I/O. */

export type Align = "left" | "right";

/**
 * A table with a header row, a rule under it, and columns padded to their widest cell. Columns
 * align left unless `align` says otherwise; numbers usually read better aligned right.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], align?: Align[]): string {
  const columns = header.length;
  for (const row of rows) {
    if (row.length !== columns)
      throw new Error(`row has ${row.length} cells, the header ${columns}: ${row.join(" | ")}`);
  }
  const widths = header.map((cell, i) => Math.max(width(cell), ...rows.map((row) => width(row[i] as string))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => pad(cell, widths[i] as number, align?.[i] ?? "left"))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** The same table as GitHub Markdown, for pasting into the README. */
export function formatMarkdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: Align[],
): string {
  const escapeCell = (cell: string) => cell.replaceAll("|", "\\|");
  const rule = header.map((_, i) => (align?.[i] === "right" ? "---:" : "---"));
  return [header, rule, ...rows].map((cells) => `| ${cells.map(escapeCell).join(" | ")} |`).join("\n");
}

/** Milliseconds with precision that suits the size: `0.142`, `3.57`, `41.2`, `1234`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  if (ms < 1000) return ms.toFixed(1);
  return ms.toFixed(0);
}

/** A ratio such as `1.07×`; `–` when it cannot be computed. */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return "–";
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1)}×`;
}

/** Bytes as `812 B`, `9.7 KB`, `41.3 MB` (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "–";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Code points, so box-drawing and other non-ASCII characters count once. */
function width(text: string): number {
  return [...text].length;
}

function pad(text: string, to: number, align: Align): string {
  const fill = " ".repeat(Math.max(0, to - width(text)));
  return align === "right" ? fill + text : text + fill;
}
