/**
 * GitHub Actions job logs as the runner writes them: an ISO timestamp before every line, ANSI
 * colours from the tools, `##[group]Run …` starting each step, `Post job cleanup.` for post steps
 * and `Cleaning up orphan processes` for "Complete job". Plus a fake log host on its own loopback
 * port (another origin than the fake API) that records the headers it was sent.
 */
import type { Server } from "bun";

const ESC = "\u001b";
let clock = Date.UTC(2025, 5, 3, 14, 0, 0);

function stamp(): string {
  clock += 137;
  return `${new Date(clock).toISOString().replace(/Z$/, "0000Z")}`;
}

/** Lines with the runner's timestamps, CRLF-free, newline-terminated. */
export function timestamped(lines: readonly string[]): string {
  return lines.map((line) => `${stamp()} ${line}\n`).join("");
}

/** The steps GitHub lists for the job of {@link failingTestLog}. */
export const FAILING_TEST_STEPS = [
  { name: "Set up job", number: 1, status: "completed", conclusion: "success" },
  { name: "Check out", number: 2, status: "completed", conclusion: "success" },
  { name: "Lint", number: 3, status: "completed", conclusion: "skipped" },
  { name: "Unit tests", number: 4, status: "completed", conclusion: "failure" },
  { name: "Upload coverage", number: 5, status: "completed", conclusion: "skipped" },
  { name: "Post Check out", number: 7, status: "completed", conclusion: "success" },
  { name: "Complete job", number: 8, status: "completed", conclusion: "success" },
];

/** A job whose "Unit tests" step fails after `noise` lines of passing output. */
export function failingTestLog(noise = 5): string {
  return `\ufeff${timestamped([
    "Current runner version: '2.317.0'",
    "##[group]Operating System",
    "Ubuntu",
    "22.04.4",
    "##[endgroup]",
    "Complete job name: test (ubuntu-latest)",
    "##[group]Run actions/checkout@v4",
    "with:",
    "  repository: octo/r",
    "##[endgroup]",
    "Syncing repository: octo/r",
    `${ESC}[36;1mgit version${ESC}[0m`,
    "##[group]Run bun test",
    `${ESC}[36;1mbun test${ESC}[0m`,
    "shell: /usr/bin/bash -e {0}",
    "##[endgroup]",
    "bun test v1.4.5",
    ...Array.from({ length: noise }, (_, i) => `${ESC}[32m✓${ESC}[0m passing test ${i + 1}`),
    `${ESC}[31m✗${ESC}[0m parses the config ${ESC}]0;pwned${ESC}\\`,
    "error: expect(received).toBe(expected)",
    "  Expected: 3",
    "  Received: 4",
    `${ESC}[1m 41 pass${ESC}[0m`,
    `${ESC}[31m 1 fail${ESC}[0m`,
    "##[error]Process completed with exit code 1.",
    "Post job cleanup.",
    "[command]/usr/bin/git version",
    "git version 2.45.2",
    "Cleaning up orphan processes",
  ])}`;
}

export interface LogHost {
  url: string;
  /** Headers of every request, lower-cased names. */
  requests: Array<{ path: string; headers: Record<string, string> }>;
  /** Serves `body` (a string or a streaming response factory) at `path`. */
  serve(path: string, body: string | (() => Response)): string;
  stop(): Promise<void>;
}

/** A second loopback server, standing in for the blob storage GitHub's signed log URLs point at. */
export async function startLogHost(): Promise<LogHost> {
  const routes = new Map<string, string | (() => Response)>();
  const requests: LogHost["requests"] = [];
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      requests.push({ path: url.pathname, headers });
      const body = routes.get(url.pathname);
      if (body === undefined) return new Response("The signed URL has expired", { status: 403 });
      return typeof body === "string" ? new Response(body, { headers: { "content-type": "text/plain" } }) : body();
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    requests,
    serve(path, body) {
      routes.set(path, body);
      return `${url}${path}?sig=abc123&se=2025-06-03T14%3A01%3A00Z`;
    },
    stop: () => server.stop(true),
  };
}

/**
 * A log of about `megabytes` MB streamed in chunks as they are read (never built whole), with a
 * failing step at its end: memory stays flat on both sides only if the reader streams too.
 */
export function streamingLog(megabytes: number): () => Response {
  const chunk = timestamped(
    Array.from({ length: 400 }, (_, i) => `${ESC}[32m  ok${ESC}[0m compiled module ${i} of a very large build`),
  );
  const bytes = new TextEncoder().encode(chunk);
  const chunks = Math.ceil((megabytes * 1024 * 1024) / bytes.byteLength);
  return () => {
    let sent = 0;
    const head = new TextEncoder().encode(
      timestamped(["##[group]Run actions/checkout@v4", "##[endgroup]", "##[group]Run make", "##[endgroup]"]),
    );
    const tail = new TextEncoder().encode(
      timestamped(["make: *** [all] Error 2", "##[error]Process completed with exit code 2."]),
    );
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
        },
        pull(controller) {
          if (sent >= chunks) {
            controller.enqueue(tail);
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(bytes);
        },
      }),
      { headers: { "content-type": "text/plain" } },
    );
  };
}
