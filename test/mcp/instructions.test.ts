import { describe, expect, test } from "bun:test";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { MAX_INSTRUCTIONS_BYTES, serverInstructions } from "../../src/mcp/instructions.ts";

const size = (text: string) => Buffer.byteLength(text, "utf8");
const named = (text: string) => [...text.matchAll(/ -> (\w+)$/gm)].map((match) => match[1]);

describe("serverInstructions", () => {
  test("every tool enabled, and the stack and CI tools other builds add: within 2 KB, each named once", () => {
    const every = [...new Set([...createToolRegistry(new Set()).names(), "get_stack_status", "get_ci_log"])];
    const text = serverInstructions(every);
    expect(size(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES);
    expect(named(text).sort()).toEqual([...every].sort());
    expect(text).toContain(
      "What am I working on? Start here: the branch, its stack, PR and Jira issue in one call -> get_branch_context",
    );
    expect(text).toMatch(/standup\? -> get_stack_status$/m);
    expect(text).toMatch(/Why is CI failing\? .* -> get_ci_log$/m);
  });

  test("only enabled tools are named: --disable and tools not built in leave their lines out", () => {
    const local = createToolRegistry(new Set(["github", "jira"])).names();
    const text = serverInstructions(local);
    expect(size(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES);
    expect(named(text).sort()).toEqual([...local].sort());
    expect(text).toContain("get_stack_status");
    expect(text).not.toContain("get_ci_log");
    // A name the table does not know is never invented into a question.
    expect(named(serverInstructions([...local, "made_up_tool"]))).not.toContain("made_up_tool");
  });

  test("with no tool to name, it still says what the server is", () => {
    expect(serverInstructions([])).toStartWith("twig-mcp answers questions about the git repository");
    expect(serverInstructions([])).not.toContain("->");
  });
});
