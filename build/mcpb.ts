import { entry, zip } from "./archive.ts";
import { TARGETS, type Target } from "./targets.ts";

// MCP Bundles (`.mcpb`): the zip Claude Desktop installs with a double-click, its manifest saying how to
// start the server and which settings to ask for; and the MCP Registry's `server.json` that lists them.

/** Claude Desktop's platforms, and Linux x64 for other hosts. */
export function bundleTargets(): Target[] {
  return TARGETS.filter((t) => ["darwin-arm64", "darwin-x64", "windows-x64", "linux-x64"].includes(t.id));
}

export function bundleEntryPoint(target: Target): string {
  return `server/${target.installed}`;
}

export interface BundleInfo {
  version: string;
  description: string;
  license: string;
  homepage: string;
  /** `https://github.com/<owner>/<repo>`. */
  repositoryUrl: string;
  keywords: readonly string[];
  /** As `tools/list` and `prompts/list` publish them. */
  tools: readonly { name: string; description: string }[];
  prompts: readonly { name: string; description: string; arguments: readonly { name: string }[] }[];
  /** assets/icon.png, shown by Claude Desktop. */
  icon: Uint8Array<ArrayBuffer>;
}

export const BUNDLE_ICON = "icon.png";

/**
 * Every setting reaches the server in `env`, none as an argument: a host keeps a blank field's argument
 * `${user_config.x}` as literal text, but an `env` value becomes "" (not set); so does the "" default.
 */
function setting(env: string, title: string, about: string, extra: { type?: "directory"; sensitive?: true } = {}) {
  // `extra.type` replaces the value of `type`, which stays the first key.
  return { env, field: { type: "string", title, description: about, ...extra, required: false, default: "" } };
}

/** Each user_config field, with the environment variable the server reads it from. */
const SETTINGS = {
  repository: setting(
    "TWIG_MCP_REPO",
    "Default repository",
    "The git repository the tools answer about when the assistant names none. Leave empty to have the assistant name a repository (any twig has registered) in each request.",
    { type: "directory" },
  ),
  github_token: setting(
    "GITHUB_TOKEN",
    "GitHub token",
    "A GitHub token for pull request status (read access to pull requests and checks). Leave empty to use the GitHub CLI's login or ~/.netrc.",
    { sensitive: true },
  ),
  jira_host: setting(
    "JIRA_HOST",
    "Jira site",
    "Your Jira site, for example acme.atlassian.net. Leave empty if you do not use Jira.",
  ),
  jira_email: setting(
    "JIRA_EMAIL",
    "Jira email",
    "The email address of your Atlassian account (Jira Cloud, with the API token below).",
  ),
  jira_api_token: setting(
    "JIRA_API_TOKEN",
    "Jira API token",
    "A Jira Cloud API token, used with the email above. Leave empty to use ~/.netrc.",
    { sensitive: true },
  ),
  jira_personal_token: setting(
    "JIRA_PERSONAL_TOKEN",
    "Jira personal access token",
    "For Jira Data Center instead of an email and API token.",
    { sensitive: true },
  ),
  disable: setting(
    "TWIG_MCP_DISABLE",
    "Tool groups to turn off",
    "Comma-separated, from: github, jira, prompts, resources. Leave empty to keep them all.",
  ),
};
const settings = Object.entries(SETTINGS);

export function bundleManifest(info: BundleInfo, target: Target): Record<string, unknown> {
  const entryPoint = bundleEntryPoint(target);
  return {
    manifest_version: "0.3",
    name: "twig-mcp",
    display_name: "twig",
    version: info.version,
    description: info.description,
    author: { name: "twig-mcp contributors", url: info.homepage },
    repository: { type: "git", url: info.repositoryUrl },
    homepage: info.homepage,
    documentation: `${info.repositoryUrl}#readme`,
    support: `${info.repositoryUrl}/issues`,
    license: info.license,
    icon: BUNDLE_ICON,
    keywords: [...info.keywords],
    server: {
      type: "binary",
      entry_point: entryPoint,
      mcp_config: {
        command: `\${__dirname}/${entryPoint}`,
        args: [],
        env: Object.fromEntries(settings.map(([key, { env }]) => [env, `\${user_config.${key}}`])),
      },
    },
    tools: info.tools.map((t) => ({ name: t.name, description: t.description })),
    tools_generated: false,
    prompts: info.prompts.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.arguments.map((a) => a.name),
      text: p.description,
    })),
    prompts_generated: false,
    // Node's `process.platform` names.
    compatibility: { platforms: [target.os === "windows" ? "win32" : target.os] },
    user_config: Object.fromEntries(settings.map(([key, { field }]) => [key, field])),
  };
}

/** Manifest, icon, binary (executable bit kept) and licence, nothing else. */
export function bundle(
  info: BundleInfo,
  target: Target,
  binary: Uint8Array<ArrayBuffer>,
  license: string,
  mtime: Date,
  level = 9,
): Uint8Array<ArrayBuffer> {
  const manifest = `${JSON.stringify(bundleManifest(info, target), null, 2)}\n`;
  const entries = [
    entry("manifest.json", manifest),
    entry(BUNDLE_ICON, info.icon),
    entry(bundleEntryPoint(target), binary, 0o755),
    entry("LICENSE", license),
  ];
  return zip(entries, mtime, level);
}

export type RegistryInfo = Pick<BundleInfo, "version" | "repositoryUrl" | "homepage"> & {
  /** `io.github.<owner>/<name>`: the registry name, also `mcpName` in the npm package. */
  mcpName: string;
  npmName: string;
  /** At most 100 characters (the registry's limit). */
  description: string;
};

/**
 * `server.json` for the MCP Registry (schema 2025-12-11): the npm launcher and the `.mcpb` bundles, each
 * owned through its `fileSha256` (`sums`: name → hex); the repository's copy has none, dist/'s all.
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
        identifier: `${info.repositoryUrl}/releases/download/v${info.version}/${target.bundle}`,
        version: info.version,
        fileSha256: sums.get(target.bundle),
        transport,
      })),
    ],
  };
  return `${JSON.stringify(entry, null, 2)}\n`;
}
