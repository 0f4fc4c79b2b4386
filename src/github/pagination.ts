import type * as v from "valibot";
import { isSameOrigin } from "../core/http-policy.ts";
import { ok, type Result } from "../core/result.ts";
import { type GitHubCall, githubGet, type Subject } from "./request.ts";

/** `Link: <url>; rel="next", <url>; rel="last"` → `{ next: url, last: url }`. */
export function parseLinkHeader(header: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*((?:;\s*[^;]+)*)/.exec(part.trim());
    if (!match) continue;
    const rels = /;\s*rel="?([^";]+)"?/.exec(match[2] ?? "");
    if (!rels) continue;
    for (const rel of (rels[1] as string).split(/\s+/)) links[rel] = match[1] as string;
  }
  return links;
}

function pageNumber(url: string | undefined): number | null {
  if (!url) return null;
  try {
    const page = Number(new URL(url).searchParams.get("page"));
    return Number.isInteger(page) && page > 0 ? page : null;
  } catch {
    return null;
  }
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

/**
 * Fetches every page of a list (up to `maxItems`). The first page's `Link: rel="last"` tells how
 * many pages exist, so the rest are fetched in parallel: any number of pages costs two round trips.
 * Without a `last` link the `next` links are followed one after another, as long as they stay on
 * the API's origin.
 */
export async function fetchPages<S extends v.GenericSchema, T>(
  call: GitHubCall,
  request: PageRequest<S, T>,
): Promise<Result<Pages<T>>> {
  const perPage = Math.min(100, Math.max(1, request.perPage));
  const pageParams = (page: number) => ({ ...request.params, per_page: perPage, page });
  const first = await githubGet(call, request.route, pageParams(1), request.schema, request.what);
  if (!first.ok) return first;
  const items = [...request.items(first.value.data)];
  let links = parseLinkHeader(first.value.headers.link);
  const pagesWanted = Math.ceil(request.maxItems / perPage);
  const lastPage = pageNumber(links.last);

  if (lastPage !== null) {
    const upTo = Math.min(lastPage, pagesWanted);
    const rest = await Promise.all(
      Array.from({ length: Math.max(0, upTo - 1) }, (_, i) =>
        githubGet(call, request.route, pageParams(i + 2), request.schema, request.what),
      ),
    );
    for (const page of rest) {
      if (!page.ok) return page;
      items.push(...request.items(page.value.data));
    }
    return ok(limit(items, request.maxItems, lastPage > upTo));
  }

  let fetched = 1;
  while (links.next && fetched < pagesWanted && items.length < request.maxItems) {
    // The token goes wherever the link points: a link off the API's origin ends the list.
    if (!isSameOrigin(links.next, `${call.connection.baseUrl}/`)) {
      call.log?.warn(
        `GitHub sent a next-page link to another origin for ${typeof request.what === "string" ? request.what : request.what.what}; not followed`,
      );
      break;
    }
    const page = await githubGet(call, `GET ${links.next}`, {}, request.schema, request.what);
    if (!page.ok) return page;
    items.push(...request.items(page.value.data));
    links = parseLinkHeader(page.value.headers.link);
    fetched++;
  }
  return ok(limit(items, request.maxItems, links.next !== undefined));
}

function limit<T>(items: T[], maxItems: number, morePages: boolean): Pages<T> {
  return { items: items.slice(0, maxItems), hasMore: morePages || items.length > maxItems };
}
