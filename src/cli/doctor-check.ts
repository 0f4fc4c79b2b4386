/** One line of `twig-mcp doctor`'s report. */
export interface Check {
  /** Stable, for `--json`; the README's troubleshooting table names each check by its `title`. */
  id: string;
  title: string;
  /** `fail`: broken, blocks use (exit 1); `warn`: works, but a feature is off or something is risky. */
  status: "ok" | "info" | "warn" | "fail";
  detail: string;
  hint?: string;
}

/** A check's outcome, with the id and title fixed, for a check that can end in several ways. */
export const checker =
  (id: string, title: string) =>
  (status: Check["status"], detail: string, hint?: string): Check => ({ id, title, status, detail, hint });
