/**
 * Floor (a): the least a compiled Bun program can do as an MCP server on stdio. It answers
 * `initialize`, `tools/list` and `tools/call` of one trivial tool with hand-written JSON, with no
 * SDK, no schema validation and no other imports: spawn and pipe costs, nothing else.
 *
 * With `FLOOR_REPLAY_FILE` (the bench's "replaying" rows) it answers every `tools/call` with the
 * `result` JSON in that file instead, written as bytes prepared at start-up: what moving a reply
 * of that size to the client costs, with no work to make it.
 */

const INITIALIZE =
  '"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"floor-bare","version":"0.0.0"}}';
const TOOLS =
  '"result":{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}}]}';
const CALL = '"result":{"content":[{"type":"text","text":"pong"}],"structuredContent":{"pong":true}}';

const replayFile = process.env.FLOOR_REPLAY_FILE;
// Imported only when replaying, so that the cold-start floor loads nothing at all.
const replayed = replayFile ? (require("node:fs") as typeof import("node:fs")).readFileSync(replayFile) : null;
const CLOSE = Buffer.from("}\n");

function answer(line: string): string | Uint8Array | null {
  const message = JSON.parse(line) as { id?: number | string; method?: string };
  if (message.id === undefined) return null; // a notification
  const id = JSON.stringify(message.id);
  switch (message.method) {
    case "initialize":
      return `{"jsonrpc":"2.0","id":${id},${INITIALIZE}}\n`;
    case "tools/list":
      return `{"jsonrpc":"2.0","id":${id},${TOOLS}}\n`;
    case "tools/call":
      if (replayed !== null)
        return Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`), replayed, CLOSE]);
      return `{"jsonrpc":"2.0","id":${id},${CALL}}\n`;
    case "ping":
      return `{"jsonrpc":"2.0","id":${id},"result":{}}\n`;
    default:
      return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}\n`;
  }
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffered += chunk;
  let newline = buffered.indexOf("\n");
  while (newline !== -1) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    const reply = line.trim() === "" ? null : answer(line);
    if (reply !== null) process.stdout.write(reply);
    newline = buffered.indexOf("\n");
  }
});
process.stdin.on("end", () => process.exit(0));
