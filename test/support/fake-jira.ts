/**
 * A fake Jira on 127.0.0.1 for hermetic tests. It behaves like Jira Cloud (REST v3 with ADF
 * descriptions, enhanced search `POST /rest/api/3/search/jql` paged by `nextPageToken`, the old
 * `/search` answering 410) or like Server/Data Center (REST v2 with wiki-markup descriptions,
 * `POST /rest/api/2/search` paged by `startAt`, no v3). Payload shapes follow Atlassian's REST
 * documentation. Every request is recorded; latency and faults can be injected.
 */

export type FakeDeployment = "cloud" | "server" | "datacenter";

export interface FakeUser {
  accountId: string;
  /** Server/Data Center user name (`name`/`key`). */
  name: string;
  displayName: string;
  emailAddress: string;
}

export interface FakeIssue {
  key: string;
  id?: string;
  summary: string;
  /** ADF document returned by REST v3 (Cloud); `null` for no description. */
  adf?: unknown;
  /** Wiki markup returned by REST v2; `null` for no description. */
  wiki?: string | null;
  status?: string;
  assignee?: FakeUser | null;
  reporter?: FakeUser | null;
  issueType?: string;
  priority?: string | null;
  labels?: string[];
  updated?: string;
}

export interface RecordedRequest {
  method: string;
  /** Path as sent (still percent-encoded), without the query string. */
  path: string;
  query: Record<string, string>;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON, or `undefined` when empty. */
  body: unknown;
}

export type FaultResponse =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | "html"
  | "truncated-json"
  | "empty-body"
  | "hang"
  | "stall-body";

export interface Fault {
  method?: string;
  /** Matches the request path (exact string or pattern). Any path when absent. */
  path?: string | RegExp;
  /** How many matching requests this fault answers; default 1. */
  times?: number;
  delayMs?: number;
  respond: FaultResponse;
}

export const USERS = {
  alice: {
    accountId: "5b10a2844c20165700ede21g",
    name: "alice",
    displayName: "Alice Example",
    emailAddress: "alice@example.com",
  },
  bob: {
    accountId: "5b10ac8d82e05b22cc7d4ef5",
    name: "bob",
    displayName: "Bob Builder",
    emailAddress: "bob@example.com",
  },
} satisfies Record<string, FakeUser>;

interface ArmedFault extends Fault {
  remaining: number;
}

export interface FakeJiraOptions {
  deployment: FakeDeployment;
  /** The only `Authorization` header accepted; any other gets 401. Unchecked when absent. */
  expectedAuthorization?: string;
  /** The user `currentUser()` means. */
  me?: FakeUser;
  /** Largest page the search endpoints return, whatever `maxResults` asks. */
  pageCap?: number;
  /** Delay before every response. */
  latencyMs?: number;
  /** Projects that exist (besides those of the issues). */
  projects?: string[];
}

export class FakeJira {
  readonly requests: RecordedRequest[] = [];
  readonly issues = new Map<string, FakeIssue>();
  readonly options: FakeJiraOptions;
  latencyMs: number;
  /**
   * While set, every response waits for this promise first: a test holds the server's answers
   * until it has done what must happen while a request is in flight.
   */
  hold: Promise<unknown> | null = null;
  #faults: ArmedFault[] = [];
  #arrivals: Array<{ path: string | RegExp; resolve: (request: RecordedRequest) => void }> = [];
  #server: ReturnType<typeof Bun.serve> | null = null;

  private constructor(options: FakeJiraOptions) {
    this.options = options;
    this.latencyMs = options.latencyMs ?? 0;
  }

  static start(options: FakeJiraOptions): FakeJira {
    const fake = new FakeJira(options);
    fake.#server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (request) => fake.#handle(request),
    });
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server?.port}`;
  }

  get cloud(): boolean {
    return this.options.deployment === "cloud";
  }

  addIssues(...issues: FakeIssue[]): this {
    for (const issue of issues) this.issues.set(issue.key, issue);
    return this;
  }

  /** Arms a fault; faults are matched in the order they were added. */
  fail(fault: Fault): this {
    this.#faults.push({ ...fault, remaining: fault.times ?? 1 });
    return this;
  }

  /**
   * Resolves with the first request to `path` (exact or pattern), as soon as it arrives, or at once
   * when one has already been recorded. The event a test waits for instead of sleeping.
   */
  awaitRequest(path: string | RegExp): Promise<RecordedRequest> {
    const seen = this.requests.find((r) => matchesPath(path, r.path));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#arrivals.push({ path, resolve }));
  }

  clearFaults(): void {
    this.#faults = [];
  }

  /** Requests other than the `serverInfo` probe. */
  apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path !== "/rest/api/2/serverInfo");
  }

  async stop(): Promise<void> {
    await this.#server?.stop(true);
    this.#server = null;
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = await request.text();
    let body: unknown;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
    };
    this.requests.push(recorded);
    for (const waiter of this.#arrivals.filter((w) => matchesPath(w.path, recorded.path))) {
      this.#arrivals.splice(this.#arrivals.indexOf(waiter), 1);
      waiter.resolve(recorded);
    }

    if (this.hold) await this.hold;
    if (this.latencyMs > 0) await Bun.sleep(this.latencyMs);
    const fault = this.#takeFault(recorded);
    if (fault) {
      if (fault.delayMs) await Bun.sleep(fault.delayMs);
      return this.#faultResponse(fault.respond, request.signal);
    }
    if (
      this.options.expectedAuthorization !== undefined &&
      headers.authorization !== this.options.expectedAuthorization
    ) {
      return this.cloud
        ? new Response("Client must be authenticated to access this resource.", {
            status: 401,
            headers: { "content-type": "text/html;charset=UTF-8" },
          })
        : json(
            401,
            {
              errorMessages: ["You are not authenticated. Authentication required to perform this operation."],
              errors: {},
            },
            { "X-Seraph-LoginReason": "AUTHENTICATED_FAILED" },
          );
    }
    return this.#route(recorded);
  }

  #takeFault(request: RecordedRequest): ArmedFault | null {
    for (const fault of this.#faults) {
      if (fault.remaining <= 0) continue;
      if (fault.method !== undefined && fault.method !== request.method) continue;
      if (fault.path !== undefined && !matchesPath(fault.path, request.path)) continue;
      fault.remaining--;
      return fault;
    }
    return null;
  }

  async #faultResponse(respond: FaultResponse, signal: AbortSignal): Promise<Response> {
    switch (respond) {
      case "html":
        return new Response(
          "<!DOCTYPE html><html><head><title>Log in - Atlassian</title></head><body><p>Please log in</p></body></html>",
          { status: 200, headers: { "content-type": "text/html;charset=UTF-8" } },
        );
      case "truncated-json":
        return new Response('{"expand":"renderedFields,names","id":"10002","key":"SHOP-1","fields":{"summ', {
          status: 200,
          headers: { "content-type": "application/json;charset=UTF-8" },
        });
      case "empty-body":
        return new Response("", { status: 200, headers: { "content-type": "application/json;charset=UTF-8" } });
      case "hang":
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 30_000);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return new Response("too late", { status: 504 });
      case "stall-body": {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"key":"SHOP-1",'));
          },
          pull: () => new Promise<void>(() => {}),
        });
        return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
      }
      default: {
        const body = respond.body;
        const headers = { ...respond.headers };
        if (typeof body === "string" || body === undefined)
          return new Response(body ?? null, { status: respond.status, headers });
        return json(respond.status, body, headers);
      }
    }
  }

  #route(request: RecordedRequest): Response {
    const { method, path } = request;
    if (method === "GET" && path === "/rest/api/2/serverInfo") return json(200, this.#serverInfo());

    const issueMatch = /^\/rest\/api\/(2|3)\/issue\/([^/]+)$/.exec(path);
    if (method === "GET" && issueMatch) {
      const version = issueMatch[1] as "2" | "3";
      if (version === "3" && !this.cloud) return notFoundPage();
      return this.#getIssue(decodeURIComponent(issueMatch[2] as string), version, request.query.fields);
    }

    if (this.cloud) {
      if (method === "POST" && path === "/rest/api/3/search/jql") return this.#searchCloud(request.body);
      if (method === "POST" && path === "/rest/api/3/issue/bulkfetch") return this.#bulkFetch(request.body);
      if (/^\/rest\/api\/(2|3)\/search$/.test(path)) {
        return json(410, {
          errorMessages: [
            "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046",
          ],
          errors: {},
        });
      }
    } else if (method === "POST" && path === "/rest/api/2/search") {
      return this.#searchServer(request.body);
    }
    return notFoundPage();
  }

  #serverInfo() {
    const deploymentType = { cloud: "Cloud", server: "Server", datacenter: "DataCenter" }[this.options.deployment];
    return {
      baseUrl: this.url,
      version: this.cloud ? "1001.0.0-SNAPSHOT" : "9.12.15",
      versionNumbers: this.cloud ? [1001, 0, 0] : [9, 12, 15],
      deploymentType,
      buildNumber: this.cloud ? 100285 : 9120015,
      buildDate: "2025-05-20T00:00:00.000+0000",
      serverTime: "2025-06-03T14:22:07.481+0000",
      scmInfo: "f0e1d2c3b4a59687",
      serverTitle: "Jira",
    };
  }

  #getIssue(key: string, version: "2" | "3", fieldsParam: string | undefined): Response {
    const issue = this.issues.get(key.toUpperCase());
    if (!issue) {
      return json(404, {
        errorMessages: ["Issue does not exist or you do not have permission to see it."],
        errors: {},
      });
    }
    const fields = fieldsParam === undefined || fieldsParam === "*all" ? null : fieldsParam.split(",");
    return json(200, this.#issuePayload(issue, version, fields));
  }

  /** The issue as REST v2 or v3 returns it, restricted to `fields` (all when `null`). */
  #issuePayload(issue: FakeIssue, version: "2" | "3", fields: string[] | null) {
    const self = `${this.url}/rest/api/${version}`;
    const id = issue.id ?? String(10000 + [...this.issues.keys()].indexOf(issue.key));
    const user = (u: FakeUser | null | undefined) => {
      if (!u) return null;
      const avatarUrls = {
        "48x48": `https://avatar.example/${u.accountId}/48`,
        "24x24": `https://avatar.example/${u.accountId}/24`,
        "16x16": `https://avatar.example/${u.accountId}/16`,
        "32x32": `https://avatar.example/${u.accountId}/32`,
      };
      return this.cloud
        ? {
            self: `${self}/user?accountId=${u.accountId}`,
            accountId: u.accountId,
            emailAddress: u.emailAddress,
            avatarUrls,
            displayName: u.displayName,
            active: true,
            timeZone: "Europe/Berlin",
            accountType: "atlassian",
          }
        : {
            self: `${self}/user?username=${u.name}`,
            name: u.name,
            key: `JIRAUSER${u.name.length}0100`,
            emailAddress: u.emailAddress,
            avatarUrls,
            displayName: u.displayName,
            active: true,
            timeZone: "Europe/Berlin",
          };
    };
    const status = issue.status ?? "To Do";
    const all: Record<string, unknown> = {
      summary: issue.summary,
      description: version === "3" ? (issue.adf ?? null) : (issue.wiki ?? null),
      status: {
        self: `${self}/status/3`,
        description: "",
        iconUrl: `${this.url}/images/icons/statuses/inprogress.png`,
        name: status,
        id: "3",
        statusCategory: {
          self: `${self}/statuscategory/4`,
          id: 4,
          key: status === "Done" ? "done" : "indeterminate",
          colorName: status === "Done" ? "green" : "yellow",
          name: status === "Done" ? "Done" : "In Progress",
        },
      },
      assignee: user(issue.assignee),
      reporter: user(issue.reporter === undefined ? USERS.bob : issue.reporter),
      issuetype: {
        self: `${self}/issuetype/10001`,
        id: "10001",
        description: "Functionality or a feature expressed as a user goal.",
        iconUrl: `${this.url}/rest/api/2/universal_avatar/view/type/issuetype/avatar/10315?size=medium`,
        name: issue.issueType ?? "Story",
        subtask: false,
        avatarId: 10315,
        hierarchyLevel: 0,
      },
      priority:
        issue.priority === null
          ? null
          : {
              self: `${self}/priority/3`,
              iconUrl: `${this.url}/images/icons/priorities/medium.svg`,
              name: issue.priority ?? "Medium",
              id: "3",
            },
      labels: issue.labels ?? [],
      updated: issue.updated ?? "2025-06-03T14:22:07.481+0000",
      created: "2025-06-01T10:00:00.000+0000",
      customfield_10020: null,
      watches: { self: `${self}/issue/${issue.key}/watchers`, watchCount: 1, isWatching: false },
    };
    const selected =
      fields === null ? all : Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k)));
    return {
      expand: "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
      id,
      self: `${self}/issue/${id}`,
      key: issue.key,
      fields: selected,
    };
  }

  /** `validate`: as Jira, a `key in (…)` naming an issue that does not exist fails the query; Data Center can be told not to. */
  #matching(jqlText: unknown, validate = true): { issues: FakeIssue[] } | { error: Response } {
    if (typeof jqlText !== "string")
      return { error: json(400, { errorMessages: ["JQL query is required."], errors: {} }) };
    let query: ParsedJql;
    try {
      query = parseJql(jqlText);
    } catch (error) {
      return {
        error: json(400, { errorMessages: [`Error in the JQL Query: ${(error as Error).message}`], errors: {} }),
      };
    }
    const projects = new Set([
      ...(this.options.projects ?? []),
      ...[...this.issues.keys()].map((k) => k.split("-")[0]),
    ]);
    const statuses = new Set([
      "To Do",
      "In Progress",
      "In Review",
      "Done",
      ...[...this.issues.values()].map((i) => i.status),
    ]);
    const errors: string[] = [];
    for (const clause of query.clauses) {
      if (
        clause.field === "project" &&
        clause.value.kind === "string" &&
        !projects.has(clause.value.text.toUpperCase())
      ) {
        errors.push(`The value '${clause.value.text}' does not exist for the field 'project'.`);
      }
      if (clause.field === "status" && clause.value.kind === "string" && !statuses.has(clause.value.text)) {
        errors.push(`The value '${clause.value.text}' does not exist for the field 'status'.`);
      }
      if ((clause.field === "key" || clause.field === "issuekey") && clause.value.kind === "list" && validate) {
        for (const key of clause.value.items) {
          if (!this.issues.has(key.toUpperCase()))
            errors.push(`An issue with key '${key}' does not exist for field 'key'.`);
        }
      }
    }
    if (errors.length > 0) return { error: json(400, { errorMessages: errors, errors: {}, warningMessages: [] }) };
    const me = this.options.me ?? USERS.alice;
    const issues = [...this.issues.values()].filter((issue) =>
      query.clauses.every((clause) => {
        const value = clause.value;
        switch (clause.field) {
          case "project":
            return value.kind === "string" && issue.key.split("-")[0] === value.text.toUpperCase();
          case "key":
          case "issuekey":
            return value.kind === "list" && value.items.some((key) => key.toUpperCase() === issue.key);
          case "status":
            return value.kind === "string" && (issue.status ?? "To Do").toLowerCase() === value.text.toLowerCase();
          case "assignee": {
            const who = issue.assignee ?? null;
            if (value.kind === "empty") return who === null;
            if (value.kind === "current-user") return who?.accountId === me.accountId;
            if (value.kind === "list") return false;
            return (
              who !== null &&
              [who.accountId, who.name, who.displayName, who.emailAddress].some(
                (id) => id.toLowerCase() === value.text.toLowerCase(),
              )
            );
          }
          default:
            return false;
        }
      }),
    );
    if (query.orderBy === "updated DESC") {
      issues.sort((a, b) => (b.updated ?? "").localeCompare(a.updated ?? "") || b.key.localeCompare(a.key));
    }
    return { issues };
  }

  /** Cloud's bulk fetch: up to 100 keys, the issues found, and an error entry for each one that is not. */
  #bulkFetch(body: unknown): Response {
    const request = (body ?? {}) as { issueIdsOrKeys?: unknown; fields?: unknown };
    const keys = request.issueIdsOrKeys;
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > 100 || !Array.isArray(request.fields)) {
      return json(400, { errorMessages: ["issueIdsOrKeys must hold 1 to 100 issue keys or ids."], errors: {} });
    }
    const issues = [];
    const issueErrors = [];
    for (const key of keys) {
      const issue = typeof key === "string" ? this.issues.get(key.toUpperCase()) : undefined;
      if (issue === undefined) {
        issueErrors.push({
          id: String(key),
          errorMessage: "Issue does not exist or you do not have permission to see it.",
        });
        continue;
      }
      issues.push({ id: issue.id ?? "10000", key: issue.key, fields: { status: { name: issue.status ?? "To Do" } } });
    }
    return json(200, { expand: "", issues, issueErrors });
  }

  #searchCloud(body: unknown): Response {
    const request = (body ?? {}) as Record<string, unknown>;
    if ("startAt" in request) {
      return json(400, {
        errorMessages: ["Invalid request payload. Refer to the REST API documentation and try again."],
      });
    }
    const found = this.#matching(request.jql);
    if ("error" in found) return found.error;
    const fields = Array.isArray(request.fields) ? (request.fields as string[]) : ["id"];
    const start = typeof request.nextPageToken === "string" ? decodeToken(request.nextPageToken) : 0;
    if (start === null)
      return json(400, { errorMessages: ["The provided next page token is invalid or expired."], errors: {} });
    const size = Math.min(Number(request.maxResults ?? 50), this.options.pageCap ?? 100);
    const page = found.issues.slice(start, start + size);
    const end = start + page.length;
    const isLast = end >= found.issues.length;
    return json(200, {
      issues: page.map((issue) => this.#issuePayload(issue, "3", fields.includes("*all") ? null : fields)),
      ...(isLast ? {} : { nextPageToken: encodeToken(end) }),
      isLast,
    });
  }

  #searchServer(body: unknown): Response {
    const request = (body ?? {}) as Record<string, unknown>;
    const found = this.#matching(request.jql, request.validateQuery !== false);
    if ("error" in found) return found.error;
    const fields = Array.isArray(request.fields) ? (request.fields as string[]) : null;
    const startAt = Number(request.startAt ?? 0);
    const maxResults = Math.min(Number(request.maxResults ?? 50), this.options.pageCap ?? 1000);
    const page = found.issues.slice(startAt, startAt + maxResults);
    return json(200, {
      expand: "schema,names",
      startAt,
      maxResults,
      total: found.issues.length,
      issues: page.map((issue) => this.#issuePayload(issue, "2", fields)),
    });
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json;charset=UTF-8", ...headers },
  });
}

function notFoundPage(): Response {
  return new Response("<html><head><title>Oops, you've found a dead link.</title></head></html>", {
    status: 404,
    headers: { "content-type": "text/html;charset=UTF-8" },
  });
}

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, s: "fake" })).toString("base64url");
}

function decodeToken(token: string): number | null {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { o?: unknown };
    return typeof parsed.o === "number" ? parsed.o : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// A small, independent JQL reader: enough of the grammar (string literals with escapes, words,
// operators) to evaluate the queries twig-mcp sends and to check that none can be subverted.

export type JqlToken =
  | { kind: "string"; value: string }
  | { kind: "word"; value: string }
  | { kind: "op"; value: string }
  | { kind: "paren"; value: "(" | ")" }
  | { kind: "comma" };

const WORD = /[A-Za-z0-9_.]/;

/** Splits JQL into tokens; throws on an unterminated string or an invalid escape. */
export function lexJql(text: string): JqlToken[] {
  const tokens: JqlToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"' || ch === "'") {
      const quote = ch;
      let value = "";
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated string literal");
        const c = text[i] as string;
        if (c === quote) {
          i++;
          break;
        }
        if (c === "\\") {
          const next = text[i + 1];
          const simple: Record<string, string> = {
            t: "\t",
            n: "\n",
            r: "\r",
            '"': '"',
            "'": "'",
            "\\": "\\",
            " ": " ",
          };
          if (next !== undefined && next in simple) {
            value += simple[next];
            i += 2;
          } else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
          } else {
            throw new Error(`invalid escape at ${i}`);
          }
          continue;
        }
        const code = c.charCodeAt(0);
        if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) throw new Error(`control character in string at ${i}`);
        value += c;
        i++;
      }
      tokens.push({ kind: "string", value });
    } else if (ch === "(" || ch === ")") {
      tokens.push({ kind: "paren", value: ch });
      i++;
    } else if (ch === ",") {
      tokens.push({ kind: "comma" });
      i++;
    } else if (/[=!<>~]/.test(ch)) {
      let op = ch;
      if (text[i + 1] === "=" || text[i + 1] === "~") op += text[i + 1];
      tokens.push({ kind: "op", value: op });
      i += op.length;
    } else if (WORD.test(ch)) {
      let value = "";
      while (i < text.length && WORD.test(text[i] as string)) value += text[i++];
      tokens.push({ kind: "word", value });
    } else {
      throw new Error(`unexpected character ${JSON.stringify(ch)} at ${i}`);
    }
  }
  return tokens;
}

type ClauseValue =
  | { kind: "string"; text: string }
  | { kind: "current-user" }
  | { kind: "empty" }
  | { kind: "list"; items: string[] };

interface ParsedJql {
  clauses: { field: string; value: ClauseValue }[];
  orderBy: string | null;
}

/** `field = "value" [AND …] [ORDER BY field DIR]`, with `currentUser()`, `IS EMPTY` and `key IN (…)`. */
function parseJql(text: string): ParsedJql {
  const tokens = lexJql(text);
  let i = 0;
  const word = (expected?: string) => {
    const token = tokens[i];
    if (token?.kind !== "word" || (expected !== undefined && token.value.toUpperCase() !== expected)) {
      throw new Error(`expected ${expected ?? "a field"} at token ${i}`);
    }
    i++;
    return token.value;
  };
  const clauses: ParsedJql["clauses"] = [];
  let orderBy: string | null = null;
  while (i < tokens.length) {
    const token = tokens[i] as JqlToken;
    if (token.kind === "word" && token.value.toUpperCase() === "ORDER") {
      i++;
      word("BY");
      const field = word();
      const direction = tokens[i]?.kind === "word" ? word().toUpperCase() : "ASC";
      orderBy = `${field} ${direction}`;
      break;
    }
    if (clauses.length > 0) word("AND");
    const field = word().toLowerCase();
    const op = tokens[i];
    if (op?.kind === "word" && op.value.toUpperCase() === "IS") {
      i++;
      word("EMPTY");
      clauses.push({ field, value: { kind: "empty" } });
      continue;
    }
    if (op?.kind === "word" && op.value.toUpperCase() === "IN") {
      i++;
      if (tokens[i]?.kind !== "paren") throw new Error(`expected ( after IN`);
      i++;
      const items: string[] = [];
      for (;;) {
        const item = tokens[i];
        if (item?.kind !== "string" && item?.kind !== "word") throw new Error("expected a value in the list");
        items.push(item.value);
        i++;
        const next = tokens[i];
        i++;
        if (next?.kind === "paren") break;
        if (next?.kind !== "comma") throw new Error("expected , or ) in the list");
      }
      clauses.push({ field, value: { kind: "list", items } });
      continue;
    }
    if (op?.kind !== "op" || op.value !== "=") throw new Error(`expected = after ${field}`);
    i++;
    const value = tokens[i];
    if (value?.kind === "string") {
      i++;
      clauses.push({ field, value: { kind: "string", text: value.value } });
    } else if (value?.kind === "word" && value.value.toLowerCase() === "currentuser") {
      i++;
      if (tokens[i]?.kind !== "paren" || tokens[i + 1]?.kind !== "paren") throw new Error("expected ()");
      i += 2;
      clauses.push({ field, value: { kind: "current-user" } });
    } else if (value?.kind === "word") {
      i++;
      clauses.push({ field, value: { kind: "string", text: value.value } });
    } else {
      throw new Error(`expected a value for ${field}`);
    }
  }
  if (i < tokens.length) throw new Error("unexpected tokens after ORDER BY");
  return { clauses, orderBy };
}

function matchesPath(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : pattern.test(path);
}
