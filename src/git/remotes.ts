import type { GitConfig } from "./config.ts";

export type Remote = { name: string; url: string };

/** Each remote's first URL, in config order, rewritten by `url.<base>.insteadOf` as git's `alias_url` does. */
export function remoteUrls(config: GitConfig): Remote[] {
  const urls = new Map<string, string | null>();
  // git groups insteadOf values under their base, bases in order of first appearance.
  const rewrites = new Map<string, string[]>();
  for (const { key, value } of config.entries) {
    // `section.subsection.name`, where the subsection (itself possibly dotted) is required here.
    const [, section, subsection = "", name] = /^(remote|url)\.(.+)\.([^.]+)$/s.exec(key) ?? [];
    if (section === "remote" && urls.get(subsection) == null) urls.set(subsection, name === "url" ? value : null);
    if (section !== "url" || name !== "insteadof") continue;
    rewrites.set(subsection, [...(rewrites.get(subsection) ?? []), value]);
  }
  return [...urls].flatMap(([name, url]) => {
    if (url === null) return [];
    let best = { base: "", insteadOf: "" };
    for (const [base, values] of rewrites) {
      for (const insteadOf of values) {
        if (url.startsWith(insteadOf) && insteadOf.length > best.insteadOf.length) best = { base, insteadOf };
      }
    }
    return [{ name, url: best.base + url.slice(best.insteadOf.length) }];
  });
}
