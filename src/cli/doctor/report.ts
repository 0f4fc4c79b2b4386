/**
 * `fail`: something the user set up is broken and blocks use (the command exits 1).
 * `warn`: works, but a feature is off or something is risky. `info` and `ok`: nothing to do.
 */
export type CheckStatus = "ok" | "info" | "warn" | "fail";

export interface Check {
  /** Stable name, listed in the README's troubleshooting section. */
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

/** A check's outcome, with the id and title fixed, for a check that can end in several ways. */
export const checker =
  (id: string, title: string) =>
  (status: CheckStatus, detail: string, hint?: string): Check =>
    hint === undefined ? { id, title, status, detail } : { id, title, status, detail, hint };

export function renderReport(header: string, checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.title.length));
  const lines = [header, ""];
  for (const c of checks) {
    lines.push(`  ${`[${c.status === "fail" ? "FAIL" : c.status}]`.padEnd(6)}  ${c.title.padEnd(width)}  ${c.detail}`);
    if (c.hint) {
      const indent = " ".repeat(2 + 6 + 2 + width + 2);
      for (const line of wrap(c.hint, Math.max(40, WIDTH - indent.length))) lines.push(indent + line);
    }
  }
  lines.push("", summary(checks));
  return `${lines.join("\n")}\n`;
}

/** Hints are sentences; wrapped so they stay readable in a 100-column terminal. */
const WIDTH = 100;

/** Lines of at most `width`, broken between words; a longer word gets a line of its own. */
function wrap(text: string, width: number): string[] {
  return text.replace(/\s+/g, " ").match(new RegExp(`\\S.{0,${width - 1}}(?=\\s|$)|\\S+`, "g")) ?? [];
}

export function summary(checks: readonly Check[]): string {
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  const warnings = warned === 1 ? "1 warning" : `${warned} warnings`;
  if (failed === 0) return warned === 0 ? "Everything twig-mcp needs is in place." : `Nothing blocks use; ${warnings}.`;
  return `${failed === 1 ? "1 problem blocks" : `${failed} problems block`} use; ${warnings}.`;
}
