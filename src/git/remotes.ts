import type { GitConfig } from "./config.ts";

export interface Remote {
  name: string;
  url: string;
}

/**
 * Each configured remote with its first URL, in the order the remotes first appear in the config,
 * after `url.<base>.insteadOf` rewriting: the longest matching prefix wins, and among equally long
 * ones the base that appears first, as in git's `alias_url`. Remotes without a URL are left out.
 */
export function remoteUrls(config: GitConfig): Remote[] {
  const urls = new Map<string, string | null>();
  // git groups insteadOf values under their base, bases in order of first appearance.
  const rewrites = new Map<string, string[]>();
  for (const { key, value } of config.entries) {
    // `section.subsection.name`, where the subsection (itself possibly dotted) is required here.
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    if (first === last) continue;
    const [section, subsection, name] = [key.slice(0, first), key.slice(first + 1, last), key.slice(last + 1)];
    if (section === "remote" && urls.get(subsection) == null) {
      urls.set(subsection, name === "url" ? value : null);
    } else if (section === "url" && name === "insteadof") {
      if (!rewrites.has(subsection)) rewrites.set(subsection, []);
      rewrites.get(subsection)?.push(value);
    }
  }
  return [...urls].flatMap(([name, url]) => (url === null ? [] : [{ name, url: rewriteUrl(url, rewrites) }]));
}

function rewriteUrl(url: string, rewrites: ReadonlyMap<string, readonly string[]>): string {
  let best: { base: string; insteadOf: string } | null = null;
  for (const [base, values] of rewrites) {
    for (const insteadOf of values) {
      if (url.startsWith(insteadOf) && (best === null || insteadOf.length > best.insteadOf.length)) {
        best = { base, insteadOf };
      }
    }
  }
  return best === null ? url : best.base + url.slice(best.insteadOf.length);
}
