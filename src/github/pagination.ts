/**
 * Hand-written rather than `octokit.paginate`, which follows `rel="next"` one page at a time: here
 * the pages are fetched in parallel once page 1's `rel="last"` says how many there are (ten pages
 * in two round trips, not ten). A `next` link off the API's origin is checked here as well, so it
 * ends the list with `has_more` instead of failing the call from the fetch layer.
 */
import type * as v from "valibot";
import { isSameOrigin } from "../core/http-policy.ts";
import { ok, type Result } from "../core/result.ts";
import { type GitHubCall, githubGet, type Subject } from "./request.ts";

/** `Link: <url>; rel="next", <url>; rel="last"` → `{ next: url, last: url }`. */
export function parseLinkHeader(header: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of header?.split(",") ?? []) {
    const [, url, params = ""] = /<([^>]*)>\s*((?:;\s*[^;]+)*)/.exec(part.trim()) ?? [];
    const rels = /;\s*rel="?([^";]+)"?/.exec(params)?.[1];
    if (url !== undefined && rels) for (const rel of rels.split(/\s+/)) links[rel] = url;
  }
  return links;
}

export interface PageRequest<S extends v.GenericSchema, T> {
  route: string;
  params: Record<string, string | number | undefined>;
  perPage: number;
  schema: S;
  items: (data: v.InferOutput<S>) => T[];
  /** Stop once this many items are in hand. */
  maxItems: number;
  what: Subject;
}

export interface Pages<T> {
  items: T[];
  /** GitHub has items beyond those returned. */
  hasMore: boolean;
}

/** Every page of a list, up to `maxItems`; without a `last` link, `next` links are followed one by one. */
export async function fetchPages<S extends v.GenericSchema, T>(
  call: GitHubCall,
  request: PageRequest<S, T>,
): Promise<Result<Pages<T>>> {
  const perPage = Math.min(100, Math.max(1, request.perPage));
  const page = (n: number) =>
    githubGet(call, request.route, { ...request.params, per_page: perPage, page: n }, request.schema, request.what);
  const first = await page(1);
  if (!first.ok) return first;
  const items = [...request.items(first.value.data)];
  let links = parseLinkHeader(first.value.link);
  const pagesWanted = Math.ceil(request.maxItems / perPage);
  const lastPage = Number(URL.parse(links.last ?? "")?.searchParams.get("page"));
  const done = (morePages: boolean) =>
    ok({ items: items.slice(0, request.maxItems), hasMore: morePages || items.length > request.maxItems });

  if (Number.isInteger(lastPage) && lastPage > 0) {
    const upTo = Math.min(lastPage, pagesWanted);
    const rest = await Promise.all(Array.from({ length: Math.max(0, upTo - 1) }, (_, i) => page(i + 2)));
    for (const next of rest) {
      if (!next.ok) return next;
      items.push(...request.items(next.value.data));
    }
    return done(lastPage > upTo);
  }

  for (let fetched = 1; links.next && fetched < pagesWanted && items.length < request.maxItems; fetched++) {
    // The token goes wherever the link points: a link off the API's origin ends the list.
    if (!isSameOrigin(links.next, `${call.connection.baseUrl}/`)) {
      const what = typeof request.what === "string" ? request.what : request.what.what;
      call.log?.warn(`GitHub sent a next-page link to another origin for ${what}; not followed`);
      break;
    }
    const next = await githubGet(call, `GET ${links.next}`, {}, request.schema, request.what);
    if (!next.ok) return next;
    items.push(...request.items(next.value.data));
    links = parseLinkHeader(next.value.link);
  }
  return done(links.next !== undefined);
}
