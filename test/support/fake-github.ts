/**
 * A fake GitHub REST API on 127.0.0.1 for tests: realistic payloads (GitHub's own OpenAPI
 * examples, varied per test), `Link` pagination, ETags with 304s, rate-limit headers, token
 * checks, injectable latency and failures, and a record of every request for assertions.
 */
import { createHash } from "node:crypto";
import type { Server, Socket, TCPSocketListener } from "bun";
import examples from "../github/fixtures/github-openapi-examples.json" with { type: "json" };
import { type CommentFixture, serveGraphql, type ThreadFixture } from "./fake-github-graphql.ts";

type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  status: number;
  startedAt: number;
  finishedAt: number;
}

export interface FakeRequest {
  method: string;
  path: string;
  url: URL;
  query: URLSearchParams;
  headers: Headers;
  params: Record<string, string>;
  /** A POST's JSON body. */
  body?: unknown;
}

export interface FakeResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Extra delay for this response, on top of the server-wide latency. */
  delayMs?: number;
  /**
   * Held until `release()` (or `reset()`): the request stays in flight for as long as the test
   * needs, so "the call returned before the answer came" is an order of events, not a timing.
   */
  held?: boolean;
}

export type RouteHandler = (request: FakeRequest) => FakeResponse | Promise<FakeResponse>;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: RouteHandler;
}

interface Injection {
  method: string;
  path: string | RegExp;
  response: FakeResponse;
  remaining: number;
}

export interface RepoData {
  pulls: Map<number, Json>;
  reviews: Map<number, Json[]>;
  /** Every check run of a commit, superseded attempts too (`filter=latest`, the default, lists each check's latest). */
  checkRuns: Map<string, Json[]>;
  statuses: Map<string, Json[]>;
  /** Branch heads: a branch name where a commit is expected (`commits/{ref}/…`) reads its head commit's lists. */
  branches: Map<string, string>;
  /** GraphQL only: each PR's review threads and conversation comments. */
  reviewThreads: Map<number, ThreadFixture[]>;
  issueComments: Map<number, CommentFixture[]>;
}

const DOCS = "https://docs.github.com/rest";

function clone<T>(value: T): T {
  return structuredClone(value);
}

// ---------------------------------------------------------------------------------------------
// Payload builders: GitHub's documented examples with the fields a test cares about replaced.

export interface PullOptions {
  number: number;
  owner?: string;
  repo?: string;
  title?: string;
  state?: "open" | "closed";
  author?: string | null;
  head?: string;
  base?: string;
  headSha?: string;
  draft?: boolean;
  merged?: boolean;
  mergeable?: boolean | null;
  body?: string | null;
  labels?: string[];
  requestedReviewers?: string[];
  requestedTeams?: string[];
  createdAt?: string;
  updatedAt?: string;
}

function user(login: string): Json {
  const base = clone((examples["pull-request"] as Json).user as Json);
  return { ...base, login, url: `https://api.github.com/users/${login}`, html_url: `https://github.com/${login}` };
}

function applyPull(target: Json, options: PullOptions): Json {
  const owner = options.owner ?? "octocat";
  const repo = options.repo ?? "Hello-World";
  const n = options.number;
  const head = target.head as Json;
  const base = target.base as Json;
  const sha = options.headSha ?? createHash("sha1").update(`${owner}/${repo}#${n}`).digest("hex");
  Object.assign(target, {
    url: `https://api.github.com/repos/${owner}/${repo}/pulls/${n}`,
    html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
    number: n,
    state: options.state ?? "open",
    title: options.title ?? `Change number ${n}`,
    user: options.author === null ? null : user(options.author ?? "octocat"),
    body: options.body === undefined ? "Please pull these awesome changes in!" : options.body,
    labels: (options.labels ?? ["bug"]).map((name, i) => ({
      ...clone(((examples["pull-request"] as Json).labels as Json[])[0] as Json),
      id: 208045946 + i,
      name,
    })),
    requested_reviewers: (options.requestedReviewers ?? ["hubot"]).map(user),
    requested_teams: (options.requestedTeams ?? []).map((slug, i) => ({
      ...clone((((examples["pull-request"] as Json).requested_teams as Json[])[0] ?? {}) as Json),
      id: 1 + i,
      slug,
      name: slug,
    })),
    created_at: options.createdAt ?? "2011-01-26T19:01:12Z",
    updated_at: options.updatedAt ?? "2011-01-26T19:01:12Z",
    draft: options.draft ?? false,
  });
  head.ref = options.head ?? `feature-${n}`;
  head.label = `${owner}:${head.ref}`;
  head.sha = sha;
  base.ref = options.base ?? "main";
  base.label = `${owner}:${base.ref}`;
  if (options.merged) {
    target.merged_at = "2011-01-27T10:00:00Z";
    target.closed_at = "2011-01-27T10:00:00Z";
    target.state = "closed";
  } else {
    target.merged_at = null;
    if ((options.state ?? "open") === "open") target.closed_at = null;
  }
  return target;
}

/** A full `GET /pulls/{n}` payload. */
export function pullRequestPayload(options: PullOptions): Json {
  const pr = applyPull(clone(examples["pull-request"] as Json), options);
  pr.merged = options.merged ?? false;
  pr.mergeable = options.mergeable === undefined ? true : options.mergeable;
  pr.mergeable_state = pr.mergeable === null ? "unknown" : "clean";
  return pr;
}

/** A `GET /pulls` list item (no `merged`, `mergeable`, counts). */
export function pullRequestSimplePayload(options: PullOptions): Json {
  return applyPull(clone((examples["pull-request-simple-items"] as Json[])[0] as Json), options);
}

export function reviewPayload(options: {
  id?: number;
  login: string | null;
  state: string;
  submittedAt?: string | null;
}): Json {
  const review = clone((examples["pull-request-review-items"] as Json[])[0] as Json);
  review.id = options.id ?? 80;
  review.user = options.login === null ? null : user(options.login);
  review.state = options.state;
  if (options.submittedAt === null || options.state === "PENDING") delete review.submitted_at;
  else review.submitted_at = options.submittedAt ?? "2019-11-17T17:43:43Z";
  return review;
}

export function checkRunPayload(options: {
  id?: number;
  name: string;
  status?: string;
  conclusion?: string | null;
  startedAt?: string | null;
  headSha?: string;
}): Json {
  const run = clone(((examples["check-run-paginated"] as Json).check_runs as Json[])[0] as Json);
  const status = options.status ?? "completed";
  run.id = options.id ?? 4;
  run.name = options.name;
  run.status = status;
  run.conclusion = options.conclusion === undefined ? (status === "completed" ? "success" : null) : options.conclusion;
  run.started_at = options.startedAt === undefined ? "2018-05-04T01:14:52Z" : options.startedAt;
  run.completed_at = status === "completed" ? "2018-05-04T01:14:52Z" : null;
  if (options.headSha) run.head_sha = options.headSha;
  return run;
}

export function commitStatusPayload(options: {
  id?: number;
  context: string;
  state: string;
  description?: string | null;
}): Json {
  const status = clone(((examples["combined-commit-status"] as Json).statuses as Json[])[0] as Json);
  status.id = options.id ?? 1;
  status.context = options.context;
  status.state = options.state;
  status.description =
    options.description === undefined ? `${options.context} is ${options.state}` : options.description;
  return status;
}

// ---------------------------------------------------------------------------------------------
// The server

export interface FakeGitHubOptions {
  /** Delay before every response (simulates network latency). */
  latencyMs?: number;
  /** When set, requests must carry `Authorization: token <this>` (or `Bearer`), else 401. */
  token?: string;
  /** Reported in `x-ratelimit-*` headers of every response. */
  rateLimitRemaining?: number;
}

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  readonly repos = new Map<string, RepoData>();
  latencyMs: number;
  token: string | undefined;
  rateLimitRemaining: number;
  #server: Server<unknown> | null = null;
  #routes: Route[] = [];
  #injections: Injection[] = [];
  #inFlight = 0;
  #lastArrival = 0;
  #maxInFlight = 0;
  #held: Array<() => void> = [];
  #arrivals: Array<{ path: string | RegExp; resolve: (request: RecordedRequest) => void }> = [];
  #countWaiters: Array<() => void> = [];

  constructor(options: FakeGitHubOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.token = options.token;
    this.rateLimitRemaining = options.rateLimitRemaining ?? 4999;
    this.#installDefaultRoutes();
  }

  static async start(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    const fake = new FakeGitHub(options);
    await fake.listen();
    return fake;
  }

  /** Starts serving on a free port of 127.0.0.1 (for a fake made with `new`). */
  async listen(): Promise<void> {
    this.#server ??= Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => this.#handle(request) });
  }

  /** The environment that points the server at this fake, with `token` as `GH_TOKEN` when given. */
  env(token = this.token): Record<string, string> {
    return { GITHUB_API_URL: this.url, ...(token === undefined ? {} : { GH_TOKEN: token }) };
  }

  get url(): string {
    if (!this.#server) throw new Error("fake GitHub not started");
    return `http://127.0.0.1:${this.#server.port}`;
  }

  /** Most requests that were being served at the same moment. */
  get maxConcurrency(): number {
    return this.#maxInFlight;
  }

  async stop(): Promise<void> {
    await this.#server?.stop(true);
    this.#server = null;
  }

  /**
   * Resolves once no request has arrived for `quietMs`. A call the client cancelled can still have
   * requests on their way; a test that waits here before the next one starts keeps them out of the
   * next test's counts. (Requests still being served were recorded on arrival and count for no one.)
   */
  async settled(quietMs = 15): Promise<void> {
    while (performance.now() - this.#lastArrival < quietMs) await Bun.sleep(quietMs);
  }

  /** Lets every held answer go. */
  release(): void {
    for (const release of this.#held.splice(0)) release();
  }

  /**
   * Resolves with the first recorded request to `path` (exact or pattern) as soon as it arrives,
   * or at once when one already has: the event a test waits for instead of sleeping.
   */
  awaitRequest(path: string | RegExp): Promise<RecordedRequest> {
    const seen = this.requestsTo(path)[0];
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#arrivals.push({ path, resolve }));
  }

  /**
   * While true, every answer is held until `release()`: a test sees which requests a call sends
   * before it has any answer, then lets that round go and looks at the next.
   */
  holdEveryAnswer = false;

  /** Resolves once `count` requests in all have arrived since the last `reset()`. */
  async awaitRequestCount(count: number): Promise<void> {
    while (this.requests.length < count) {
      await new Promise<void>((resolve) => this.#countWaiters.push(resolve));
    }
  }

  reset(): void {
    this.holdEveryAnswer = false;
    this.release();
    this.requests.length = 0;
    this.#injections.length = 0;
    this.#maxInFlight = 0;
  }

  /** Registers a handler; `:name` segments become `params.name`. Later routes win over earlier ones. */
  route(method: string, path: string, handler: RouteHandler): this {
    const keys: string[] = [];
    const source = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_, key: string) => {
      keys.push(key);
      return key === "ref" ? "(.+?)" : "([^/]+)";
    });
    this.#routes.unshift({ method, pattern: new RegExp(`^${source}$`), keys, handler });
    return this;
  }

  /** The next `times` requests matching `method` and `path` get `response` instead of the route's. */
  inject(method: string, path: string | RegExp, response: FakeResponse, times = 1): this {
    this.#injections.push({ method, path, response, remaining: times });
    return this;
  }

  repo(owner: string, repo: string): RepoData {
    const key = `${owner}/${repo}`.toLowerCase();
    let data = this.repos.get(key);
    if (!data) {
      data = {
        pulls: new Map(),
        reviews: new Map(),
        checkRuns: new Map(),
        statuses: new Map(),
        branches: new Map(),
        reviewThreads: new Map(),
        issueComments: new Map(),
      };
      this.repos.set(key, data);
    }
    return data;
  }

  /** Adds a PR (full payload) to a repository and returns it. */
  addPull(options: PullOptions): Json {
    const owner = options.owner ?? "octocat";
    const repo = options.repo ?? "Hello-World";
    const payload = pullRequestPayload({ ...options, owner, repo });
    this.repo(owner, repo).pulls.set(options.number, payload);
    return payload;
  }

  requestsTo(path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => matches(path, r.path));
  }

  // -------------------------------------------------------------------------------------------

  async #handle(request: Request): Promise<Response> {
    const startedAt = performance.now();
    this.#lastArrival = startedAt;
    this.#inFlight++;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const record: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      status: 0,
      startedAt,
      finishedAt: 0,
    };
    this.requests.push(record);
    for (const wake of this.#countWaiters.splice(0)) wake();
    for (const waiter of this.#arrivals.filter((w) => matches(w.path, record.path))) {
      this.#arrivals.splice(this.#arrivals.indexOf(waiter), 1);
      waiter.resolve(record);
    }
    try {
      const response = await this.#respond(request, url);
      record.status = response.status;
      return response;
    } finally {
      this.#inFlight--;
      record.finishedAt = performance.now();
    }
  }

  async #respond(request: Request, url: URL): Promise<Response> {
    const injection = this.#injections.find(
      (i) =>
        i.remaining > 0 &&
        i.method === request.method &&
        (typeof i.path === "string" ? i.path === url.pathname : i.path.test(url.pathname)),
    );
    let result: FakeResponse;
    if (injection) {
      injection.remaining--;
      result = injection.response;
    } else if (this.token !== undefined && !this.#authorized(request.headers.get("authorization"))) {
      result = { status: 401, body: { message: "Bad credentials", documentation_url: DOCS } };
    } else {
      result = await this.#route(request, url);
    }
    if (result.held || this.holdEveryAnswer) await new Promise<void>((resolve) => this.#held.push(resolve));
    const delay = this.latencyMs + (result.delayMs ?? 0);
    if (delay > 0) await Bun.sleep(delay);
    return this.#toResponse(request, result);
  }

  #authorized(header: string | null): boolean {
    if (!header) return false;
    const match = /^(token|bearer)\s+(.+)$/i.exec(header);
    return match?.[2] === this.token;
  }

  async #route(request: Request, url: URL): Promise<FakeResponse> {
    for (const route of this.#routes) {
      if (route.method !== request.method) continue;
      const match = route.pattern.exec(url.pathname);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.keys.forEach((key, i) => {
        params[key] = decodeURIComponent(match[i + 1] as string);
      });
      return route.handler({
        method: request.method,
        path: url.pathname,
        url,
        query: url.searchParams,
        headers: request.headers,
        params,
        ...(request.method === "POST" ? { body: await request.json().catch(() => null) } : {}),
      });
    }
    return notFound();
  }

  #toResponse(request: Request, result: FakeResponse): Response {
    const status = result.status ?? 200;
    const headers = new Headers({
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": String(this.rateLimitRemaining),
      "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
      "x-ratelimit-used": String(5000 - this.rateLimitRemaining),
      "x-ratelimit-resource": "core",
      "x-github-media-type": "github.v3; format=json",
    });
    for (const [name, value] of Object.entries(result.headers ?? {})) headers.set(name, value);
    if (result.body === undefined || status === 204 || status === 304) return new Response(null, { status, headers });
    const text = typeof result.body === "string" ? result.body : JSON.stringify(result.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json; charset=utf-8");
    if (status === 200 && request.method === "GET" && !headers.has("etag")) {
      const etag = `W/"${createHash("sha256").update(text).digest("hex").slice(0, 32)}"`;
      headers.set("etag", etag);
      const conditional = request.headers.get("if-none-match");
      if (conditional?.split(",").some((tag) => tag.trim() === etag)) {
        return new Response(null, { status: 304, headers });
      }
    }
    return new Response(text, { status, headers });
  }

  #installDefaultRoutes(): void {
    const repoOr404 = (params: Record<string, string>) =>
      this.repos.get(`${params.owner}/${params.repo}`.toLowerCase()) ?? null;

    const graphql: RouteHandler = (req) =>
      serveGraphql({ ...req, body: req.body }, (owner, name) => this.repos.get(`${owner}/${name}`.toLowerCase()));
    this.route("POST", "/graphql", graphql);
    this.route("POST", "/api/graphql", graphql);

    this.route("GET", "/repos/:owner/:repo/pulls", (req) => {
      const data = repoOr404(req.params);
      if (!data) return notFound();
      const state = req.query.get("state") ?? "open";
      if (!["open", "closed", "all"].includes(state)) {
        return { status: 422, body: { message: "Validation Failed", errors: [{ field: "state", code: "invalid" }] } };
      }
      const head = req.query.get("head");
      const base = req.query.get("base");
      const items = [...data.pulls.values()]
        .filter((pr) => state === "all" || pr.state === state)
        .filter((pr) => !head || (pr.head as Json).label === head)
        .filter((pr) => !base || (pr.base as Json).ref === base)
        .sort((a, b) => (b.number as number) - (a.number as number))
        .map((pr) => {
          const { merged: _m, mergeable: _g, mergeable_state: _s, ...rest } = pr;
          return rest;
        });
      return paginate(req, items);
    });

    this.route("GET", "/repos/:owner/:repo/pulls/:number", (req) => {
      const pr = repoOr404(req.params)?.pulls.get(Number(req.params.number));
      return pr ? { body: pr } : notFound();
    });

    this.route("GET", "/repos/:owner/:repo/pulls/:number/reviews", (req) => {
      const data = repoOr404(req.params);
      if (!data?.pulls.has(Number(req.params.number))) return notFound();
      return paginate(req, data.reviews.get(Number(req.params.number)) ?? []);
    });

    this.route("GET", "/repos/:owner/:repo/commits/:ref/check-runs", (req) => {
      const data = repoOr404(req.params);
      if (!data) return notFound();
      const ref = req.params.ref as string;
      const all = data.checkRuns.get(data.branches.get(ref) ?? ref) ?? [];
      // GitHub's default: each check's most recent run (a re-run is a new run of the same suite).
      const key = (run: Json) => `${(run.check_suite as Json | null)?.id}/${run.name}`;
      const latest = (run: Json) =>
        !all.some((other) => key(other) === key(run) && (other.id as number) > (run.id as number));
      const runs = req.query.get("filter") === "all" ? all : all.filter(latest);
      return paginate(req, runs, (page) => ({ total_count: runs.length, check_runs: page }));
    });

    this.route("GET", "/repos/:owner/:repo/commits/:ref/status", (req) => {
      const data = repoOr404(req.params);
      if (!data) return notFound();
      const ref = req.params.ref as string;
      const statuses = data.statuses.get(data.branches.get(ref) ?? ref) ?? [];
      const combined = clone(examples["combined-commit-status"] as Json);
      const state = statuses.some((s) => s.state === "failure" || s.state === "error")
        ? "failure"
        : statuses.length === 0 || statuses.some((s) => s.state === "pending")
          ? "pending"
          : "success";
      return paginate(req, statuses, (page) => ({
        ...combined,
        state,
        sha: req.params.ref,
        total_count: statuses.length,
        statuses: page,
      }));
    });
  }
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : pattern.test(path);
}

function notFound(): FakeResponse {
  return { status: 404, body: { message: "Not Found", documentation_url: DOCS, status: "404" } };
}

/**
 * One page of `items` as GitHub serves it: `per_page` (default 30, max 100) and `page` from the
 * query, and a `Link` header with `next`/`last`/`prev`/`first` built from the request URL.
 */
function paginate(req: FakeRequest, items: readonly unknown[], wrap?: (page: unknown[]) => unknown): FakeResponse {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(req.query.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (n: number) => {
    const url = new URL(req.url.href);
    url.searchParams.set("page", String(n));
    url.searchParams.set("per_page", String(perPage));
    return `<${url.href}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${link(page - 1)}; rel="prev"`, `${link(1)}; rel="first"`);
  if (page < last) rels.push(`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`);
  return {
    body: wrap ? wrap(slice) : slice,
    ...(rels.length > 0 ? { headers: { link: rels.join(", ") } } : {}),
  };
}

/**
 * A TCP server that accepts connections and closes them without answering: a dropped connection
 * as a client sees it.
 */
export async function startDroppingServer(): Promise<{ url: string; connections: () => number; stop: () => void }> {
  let connections = 0;
  const listener: TCPSocketListener<undefined> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket: Socket<undefined>) {
        connections++;
        socket.end();
      },
      data() {},
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    connections: () => connections,
    stop: () => listener.stop(true),
  };
}
