/** The one paging path's bounds (`fetchPages`), against the fake GitHub: repeats, empty pages and the byte budget. */
import { afterAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { fetchPages, MAX_PAGED_BYTES } from "../../src/github/request.ts";
import { connect } from "../../src/tools/shared/github-params.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { cleanupTemp, makeContext, TOKEN } from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
afterAll(() => cleanupTemp());

const PATH = "/repos/octo/r/things";

async function read(maxItems = 1000) {
  const { ctx } = makeContext({ env: fake.env() });
  const call = await connect(ctx, { host: "github.com", owner: "octo", repo: "r" }, new AbortController().signal);
  if (!call.ok) throw new Error(call.error.message);
  const pages = await fetchPages(call.value, {
    route: `GET ${PATH}`,
    params: {},
    perPage: 100,
    schema: v.array(v.object({ n: v.string() })),
    items: (data) => data,
    maxItems,
    what: "things",
  });
  if (!pages.ok) throw new Error(pages.error.message);
  return pages.value;
}

const link = (page: number, rel = "next") => `<${fake.url}${PATH}?per_page=100&page=${page}>; rel="${rel}"`;

describe("fetchPages ends", () => {
  test("a next link it has followed before: read once, then it stops and says so", async () => {
    fake.route("GET", PATH, () => ({ body: [{ n: "a" }], headers: { link: link(2) } }));
    const pages = await read();
    expect(fake.requestsTo(PATH)).toHaveLength(2);
    expect(pages).toEqual({
      items: [{ n: "a" }, { n: "a" }],
      hasMore: true,
      stopped: "GitHub sent a page cursor it had sent before",
    });
  });

  test("an empty page that links to more: it stops there", async () => {
    let n = 0;
    fake.route("GET", PATH, () => ({ body: n++ === 0 ? [{ n: "a" }] : [], headers: { link: link(n + 1) } }));
    const pages = await read();
    expect(fake.requestsTo(PATH)).toHaveLength(2);
    expect(pages.stopped).toBe("GitHub sent an empty page that claimed more");
  });

  test("ten 5 MB pages asked at once: the 32 MiB budget ends the read, what came before is kept", async () => {
    const big = "x".repeat(50_000);
    fake.route("GET", PATH, (req) => ({
      body: Array.from({ length: 100 }, (_, i) => ({ n: `${req.query.get("page")}-${i}-${big}` })),
      headers: { link: `${link(2)}, ${link(10, "last")}` },
    }));
    const pages = await read();
    expect(fake.requestsTo(PATH)).toHaveLength(10);
    expect(pages.hasMore).toBe(true);
    expect(pages.stopped).toBe("its pages passed the 32 MiB one read takes in");
    expect(pages.items.length).toBeGreaterThanOrEqual(100);
    expect(pages.items.length * big.length).toBeLessThanOrEqual(MAX_PAGED_BYTES);
  });
});
