import { bundleName, bundleTargets } from "./mcpb.ts";

/**
 * `server.json` for the MCP Registry (schema 2025-12-11): the npm launcher and the release's
 * `.mcpb` bundles. The registry checks ownership of the npm package through `mcpName` in its
 * package.json, and of each bundle through its `fileSha256`, which exists only once the bundle is
 * built: the copy in the repository has none, the one build.ts writes to dist/ has them all.
 */
export const REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

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

/** `{ name → sha256 }` for the bundles built; omitted names get no `fileSha256`. */
export function registryEntry(info: RegistryInfo, sums: ReadonlyMap<string, string> = new Map()) {
  const download = `${info.repositoryUrl}/releases/download/v${info.version}`;
  return {
    $schema: REGISTRY_SCHEMA,
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
        transport: { type: "stdio" },
      },
      ...bundleTargets().map((target) => {
        const file = bundleName(target);
        const hex = sums.get(file);
        return {
          registryType: "mcpb",
          identifier: `${download}/${file}`,
          version: info.version,
          ...(hex ? { fileSha256: hex } : {}),
          transport: { type: "stdio" },
        };
      }),
    ],
  };
}

export function renderRegistryEntry(entry: ReturnType<typeof registryEntry>): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}
