/**
 * A cloned repository as an attacker would commit it (issue 19, classes 1–3), through the
 * compiled binary: files whose size lies, a config pattern built to backtrack, and nested
 * repositories that point outside every exposed place. Each call must come back, with an answer
 * or a structured error; timing limits live in bench/, not here.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { RawServer, type ToolResult } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

setDefaultTimeout(60_000);

/** A hang fails the call instead of stalling the suite; the old behaviour hung far longer. */
const CALL_TIMEOUT_MS = 20_000;

let world: World;
let cases: string;
let server: RawServer;
let counter = 0;

beforeAll(async () => {
  // Nothing here should reach GitHub; if something did, it meets a closed port, not the network.
  world = makeWorld({ GITHUB_API_URL: "http://127.0.0.1:9/" });
  cases = join(world.repo.sandbox, "cases");
  mkdirSync(cases);
  server = await RawServer.start({ cwd: world.root, env: world.env });
  server.onServerRequest = () => ({ roots: [{ uri: pathToFileURL(cases).href, name: "cases" }] });
  await server.initialize({ capabilities: { roots: { listChanged: true } } });
});

afterAll(async () => {
  await server?.close();
  world?.cleanup();
});

function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return server.call(name, args, { timeoutMs: CALL_TIMEOUT_MS });
}

/** A fresh copy of the example repository under the exposed root, changed by `change`. */
function caseRepo(change: (dir: string) => void): string {
  const dir = join(cases, `case-${++counter}`);
  cpSync(world.root, dir, { recursive: true, verbatimSymlinks: true });
  change(dir);
  return dir;
}

/**
 * A regular file that `stat` calls empty and that reads on for hundreds of gigabytes: the page map
 * of whichever process opens it (8 bytes for every page of its address space).
 */
const ENDLESS_PROC_FILE = "/proc/self/pagemap";

describe("files whose size lies (19.1)", () => {
  test("a committed state.json linked to a /proc file is refused unread (a link out of the repository), and the server goes on", async () => {
    const dir = caseRepo((d) => {
      rmSync(join(d, ".twig", "state.json"));
      symlinkSync(ENDLESS_PROC_FILE, join(d, ".twig", "state.json"));
    });
    const listed = await call("list_branches", { repo: dir });
    expect(listed.isError).toBe(true);
    expect(listed.envelope.error?.code).toBe("no_twig_state");
    expect(listed.envelope.error?.message).toContain("outside the repository");
    const current = await call("get_current_branch", { repo: dir });
    expect(current.structured).toMatchObject({ branch: "feature/auth-ui" });
  });

  test("an include.path to a /proc file is refused unread (outside the repository)", async () => {
    const dir = caseRepo((d) =>
      appendFileSync(join(d, ".git", "config"), `[include]\n\tpath = ${ENDLESS_PROC_FILE}\n`),
    );
    // The remotes come from the effective config, includes and all.
    const listed = await call("list_pull_requests", { repo: dir });
    expect(listed.isError).toBe(true);
    expect(listed.envelope.error?.message).toContain(ENDLESS_PROC_FILE);
    expect(listed.envelope.error?.message).toContain("outside the repository");
  });
});

describe("patterns built to backtrack (19.2)", () => {
  test("includeIf onbranch:/gitdir: *a*a*a…b with a long branch checked out answers with the branch", async () => {
    const stars = `${"*a".repeat(40)}b`;
    const name = "a".repeat(200);
    const dir = caseRepo((d) => {
      world.repo.git("-C", d, "checkout", "-q", "-b", name);
      appendFileSync(join(d, ".git", "config"), `[includeIf "onbranch:${stars}"]\n\tpath = missing-include\n`);
      appendFileSync(join(d, ".git", "config"), `[includeIf "gitdir:/${stars}"]\n\tpath = missing-include\n`);
    });
    const current = await call("get_current_branch", { repo: dir });
    expect(current.structured).toMatchObject({ branch: name });
  });
});
