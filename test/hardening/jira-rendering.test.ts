/**
 * Rendering amplification: a Jira description's table is drawn as a grid, so one wide row would
 * pad every row to its width. 100 issues whose 30 KB descriptions each render to megabytes must
 * not make the server build them whole: rendering stops at the size the description is cut to, and
 * table columns are capped. Measured as the server's peak RSS (VmHWM) from `/proc`, no timing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";

setDefaultTimeout(120_000);

const ISSUES = 100;

/** About 30 KB of ADF: a header of 150 cells spanning 64 columns each, then 330 one-cell rows. */
function amplifyingTable(): unknown {
  const wide = { type: "tableCell", attrs: { colspan: 64 }, content: [] };
  const narrow = { type: "tableRow", content: [{ type: "tableCell", content: [] }] };
  return {
    type: "doc",
    version: 1,
    content: [
      {
        type: "table",
        content: [{ type: "tableRow", content: Array(150).fill(wide) }, ...Array(330).fill(narrow)],
      },
    ],
  };
}

let jira: FakeJira;
let home: HermeticHome;
let server: RunningServer;

beforeAll(async () => {
  jira = FakeJira.start({ deployment: "cloud", me: USERS.alice });
  const adf = amplifyingTable();
  expect(JSON.stringify(adf).length).toBeLessThan(32 * 1024);
  for (let i = 1; i <= ISSUES; i++) jira.addIssues({ key: `WIDE-${i}`, summary: `Wide ${i}`, adf });
  home = makeHermeticHome({
    JIRA_HOST: jira.url,
    JIRA_EMAIL: "alice@example.com",
    JIRA_API_TOKEN: "atatt-rendering-0000",
    TWIG_MCP_HTTP_TIMEOUT_MS: "60000",
  });
  server = await startServer({ cwd: home.home, env: home.env });
});

afterAll(async () => {
  await server?.close();
  await jira?.stop();
  home?.cleanup();
});

/** The server's peak resident memory so far, in bytes. */
function peakRss(): number {
  const status = readFileSync(`/proc/${server.pid()}/status`, "utf8");
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error("no VmHWM in /proc status");
  return Number(kb) * 1024;
}

describe.skipIf(process.platform !== "linux")("a table that pads every row to its widest", () => {
  test("list_jira_issues over 100 such issues: descriptions cut, memory bounded", async () => {
    const before = peakRss();
    const result = await server.call("list_jira_issues", { project: "WIDE", limit: ISSUES });
    expect(result.envelope.status).toBe("ok");
    const issues = (result.envelope.data as { issues: Array<{ description?: string; truncated?: true }> }).issues;
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue.truncated).toBe(true);
      expect(issue.description?.length ?? 0).toBeLessThanOrEqual(1_002);
      // Columns are capped: no line is wider than 20 empty cells' worth.
      const widest = Math.max(...(issue.description ?? "").split("\n").map((line) => line.length));
      expect(widest).toBeLessThan(200);
    }
    // Rendered whole, each description is megabytes: 100 of them cost gigabytes.
    expect(peakRss() - before).toBeLessThan(300 * 1024 * 1024);
  });

  test("get_jira_issue: with its columns capped, the table is small", async () => {
    const before = peakRss();
    const result = await server.call("get_jira_issue", { issue_key: "WIDE-1" });
    expect(result.envelope.status).toBe("ok");
    const issue = result.envelope.data as { description: string };
    const lines = issue.description.split("\n");
    expect(lines).toHaveLength(332);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(200);
    expect(peakRss() - before).toBeLessThan(300 * 1024 * 1024);
  });
});
