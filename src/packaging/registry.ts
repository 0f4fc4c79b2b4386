import { bundleName, bundleTargets } from "./mcpb.ts";

export interface RegistryInfo {
  /** `io.github.<owner>/<name>`: the registry name, also `mcpName` in the npm package. */
  mcpName: string;
  npmName: string;
  version: string;
  /** At most 100 characters (the registry's limit). */
  description: string;
  /** `https://github.com/<owner>/<repo>`. */
  repositoryUrl: string;
  homepage: string;
}

/**
 * `server.json` for the MCP Registry (schema 2025-12-11): the npm launcher and the release's
 * `.mcpb` bundles. The registry checks ownership of the npm package through `mcpName` in its
 * package.json, and of each bundle through its `fileSha256` (`sums`: name → hex), which exists only
 * once the bundle is built: the copy in the repository has none, the one build.ts writes to dist/ has them all.
 */
export function serverJson(info: RegistryInfo, sums: ReadonlyMap<string, string> = new Map()): string {
  const transport = { type: "stdio" };
  const entry = {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    name: info.mcpName,
    title: "twig",
    description: info.description,
    repository: { url: info.repositoryUrl, source: "github" },
    websiteUrl: info.homepage,
    version: info.version,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: info.npmName,
        version: info.version,
        transport,
      },
      ...bundleTargets().map((target) => ({
        registryType: "mcpb",
        identifier: `${info.repositoryUrl}/releases/download/v${info.version}/${bundleName(target)}`,
        version: info.version,
        fileSha256: sums.get(bundleName(target)),
        transport,
      })),
    ],
  };
  return `${JSON.stringify(entry, null, 2)}\n`;
}
