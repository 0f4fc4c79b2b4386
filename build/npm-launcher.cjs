#!/usr/bin/env node
// The `twig-mcp` command of the npm package. The server itself is a native executable that comes
// in a per-platform package (twig-mcp-linux-x64, …) which npm, bun and pnpm install as an
// optional dependency only on the matching OS, CPU and C library. This script finds it and runs
// it with our arguments and stdio, so it works the same under `npx` (Node) and `bunx` (Bun).
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report?.getReport();
    if (report?.header) return !report.header.glibcVersionRuntime;
  } catch {}
  try {
    return fs.readdirSync("/lib").some((name) => name.startsWith("ld-musl-"));
  } catch {
    return false;
  }
}

/** Packages to try, best first: the other C library's build is a fallback that may still run. */
function candidates() {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const base = `twig-mcp-${os}-${process.arch}`;
  if (os !== "linux") return [base];
  return isMusl() ? [`${base}-musl`, base] : [base, `${base}-musl`];
}

function findBinary() {
  if (process.env.TWIG_MCP_BINARY) return process.env.TWIG_MCP_BINARY;
  const file = process.platform === "win32" ? "twig-mcp.exe" : "twig-mcp";
  for (const name of candidates()) {
    try {
      const binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", file);
      if (fs.existsSync(binary)) return binary;
    } catch {}
  }
  return null;
}

const binary = findBinary();
if (binary === null) {
  process.stderr.write(
    `twig-mcp: no prebuilt binary for ${process.platform}-${process.arch} was installed (looked for ${candidates().join(", ")}).\n` +
      "Your package manager may have skipped optional dependencies (--no-optional, --omit=optional): reinstall without that,\n" +
      "or download a binary from the project's releases and set TWIG_MCP_BINARY to its path.\n",
  );
  process.exit(1);
}

// Some package managers drop the executable bit when they unpack.
try {
  fs.accessSync(binary, fs.constants.X_OK);
} catch {
  try {
    fs.chmodSync(binary, 0o755);
  } catch {}
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const forward = (signal) => () => {
  try {
    child.kill(signal);
  } catch {}
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, forward(signal));
child.on("error", (error) => {
  process.stderr.write(`twig-mcp: cannot start ${binary}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // End the same way the server ended, so callers see the signal.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
