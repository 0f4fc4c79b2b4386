import type { GitConfig } from "./config.ts";

export interface Remote {
  name: string;
  url: string;
}

interface Rewrite {
  base: string;
  insteadOf: string;
}

/**
 * Each configured remote with its first URL, in the order the remotes first appear in the config,
 * after `url.<base>.insteadOf` rewriting: the longest matching prefix wins, and among equally long
 * ones the base that appears first, as in git's `alias_url`. Remotes without a URL are left out.
 */
export function remoteUrls(config: GitConfig): Remote[] {
  const urls = new Map<string, string | null>();
  const rewrites: Rewrite[] = [];
  const bases: string[] = [];
  for (const { key, value } of config.entries()) {
    const parts = splitKey(key);
    if (parts === null) continue;
    const { section, subsection, name } = parts;
    if (section === "remote") {
      if (!urls.has(subsection)) urls.set(subsection, null);
      if (name === "url" && urls.get(subsection) === null) urls.set(subsection, value);
    } else if (section === "url" && name === "insteadof") {
      if (!bases.includes(subsection)) bases.push(subsection);
      rewrites.push({ base: subsection, insteadOf: value });
    }
  }
  // git groups insteadOf values under their base, bases in order of first appearance.
  const ordered = bases.flatMap((base) => rewrites.filter((rewrite) => rewrite.base === base));
  const remotes: Remote[] = [];
  for (const [name, url] of urls) {
    if (url !== null) remotes.push({ name, url: rewriteUrl(url, ordered) });
  }
  return remotes;
}

function rewriteUrl(url: string, rewrites: Rewrite[]): string {
  let best: Rewrite | null = null;
  for (const rewrite of rewrites) {
    if (url.startsWith(rewrite.insteadOf) && (best === null || rewrite.insteadOf.length > best.insteadOf.length)) {
      best = rewrite;
    }
  }
  return best === null ? url : best.base + url.slice(best.insteadOf.length);
}

/** `section.subsection.name`, where the subsection (itself possibly dotted) is required here. */
function splitKey(key: string): { section: string; subsection: string; name: string } | null {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === last) return null;
  return { section: key.slice(0, first), subsection: key.slice(first + 1, last), name: key.slice(last + 1) };
}
