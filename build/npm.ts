import { type ArchiveEntry, entry, tarGz } from "./archive.ts";
import { TARGETS, type Target } from "./targets.ts";

/** npm fixes every tarball entry's time to this date; so do we, for byte-identical rebuilds. */
const NPM_MTIME = new Date("1985-10-26T08:15:00Z");

export interface PackageInfo {
  name: string;
  version: string;
  description: string;
  license: string;
  homepage?: string;
  repository?: unknown;
  keywords?: string[];
  /** The MCP Registry reads it from the published package to prove ownership. */
  mcpName?: string;
}

/** `package.json`: the fields every package has, then `rest`. */
function manifest(info: PackageInfo, name: string, description: string, rest: object): ArchiveEntry {
  const fields = {
    name,
    version: info.version,
    description,
    license: info.license,
    ...(info.homepage ? { homepage: info.homepage } : {}),
    ...(info.repository ? { repository: info.repository } : {}),
    ...rest,
  };
  return entry("package/package.json", `${JSON.stringify(fields, null, 2)}\n`);
}

/** The `twig-mcp` package: a launcher, and the platform packages as optional dependencies (one gets installed). */
export function mainPackage(info: PackageInfo, launcher: string, readme: string) {
  const optionalDependencies = Object.fromEntries(
    TARGETS.filter((t) => t.npm !== null).map((t) => [`twig-mcp-${t.id}`, info.version]),
  );
  const entries = [
    manifest(info, "twig-mcp", info.description, {
      ...(info.keywords ? { keywords: info.keywords } : {}),
      ...(info.mcpName ? { mcpName: info.mcpName } : {}),
      bin: { "twig-mcp": "bin/twig-mcp.js" },
      files: ["bin/", "README.md"],
      engines: { node: ">=18" },
      optionalDependencies,
    }),
    entry("package/bin/twig-mcp.js", launcher, 0o755),
    entry("package/README.md", readme),
  ];
  return { file: `twig-mcp-${info.version}.tgz`, bytes: tarGz(entries, NPM_MTIME) };
}

/** One platform's package: the native binary under `bin/` (not a `bin` entry: the launcher runs it). */
export function platformPackage(info: PackageInfo, target: Target, binary: Uint8Array<ArrayBuffer>, level = 9) {
  if (target.npm === null) throw new Error(`${target.id} is not published to npm`);
  const name = `twig-mcp-${target.id}`;
  const readme = `# ${name}\n\nThe ${target.id} executable of [twig-mcp](https://www.npmjs.com/package/twig-mcp). Install \`twig-mcp\` instead; it depends on this package.\n`;
  const entries = [
    manifest(info, name, `The twig-mcp executable for ${target.id}; install twig-mcp, which picks it.`, {
      os: [target.npm.os],
      cpu: [target.npm.cpu],
      ...(target.npm.libc ? { libc: [target.npm.libc] } : {}),
      files: ["bin/"],
      preferUnplugged: true,
    }),
    entry("package/README.md", readme),
    entry(`package/bin/${target.installed}`, binary, 0o755),
  ];
  return { file: `${name}-${info.version}.tgz`, bytes: tarGz(entries, NPM_MTIME, level) };
}
