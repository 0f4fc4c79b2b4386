import { entry, zip } from "./archive.ts";
import { installedName, TARGETS, type Target } from "./targets.ts";

/**
 * MCP Bundles (`.mcpb`, formerly DXT): the zip Claude Desktop installs with a double-click. Its
 * `manifest.json` says how to start the server and which settings to ask for; fields marked
 * `sensitive` are kept in the OS keychain.
 */

/** The targets a bundle is made for: Claude Desktop's platforms, and Linux x64 for other hosts. */
export function bundleTargets(): Target[] {
  return TARGETS.filter((t) => ["darwin-arm64", "darwin-x64", "windows-x64", "linux-x64"].includes(t.id));
}

export function bundleName(target: Target): string {
  return `twig-mcp-${target.id}.mcpb`;
}

/** Where the binary sits inside the bundle. */
export function bundleEntryPoint(target: Target): string {
  return `server/${installedName(target)}`;
}

export interface BundleInfo {
  version: string;
  description: string;
  license: string;
  /** This project's web page (package.json `homepage`). */
  homepage: string;
  /** The git repository's web address (package.json `repository`). */
  repositoryUrl: string;
  keywords: readonly string[];
  /** As `tools/list` publishes them (the same build-time data). */
  tools: readonly { name: string; description: string }[];
  prompts: readonly { name: string; description: string; arguments: readonly { name: string }[] }[];
  /** The PNG Claude Desktop shows for the server (assets/icon.png). */
  icon: Uint8Array<ArrayBuffer>;
}

/** Where the icon lies in a bundle, as its manifest names it. */
export const BUNDLE_ICON = "icon.png";

/**
 * Every setting goes to the server as an environment variable, none as an argument: a host fills
 * `${user_config.x}` inside a string (an `env` value) with an empty string when the field is left
 * blank, but keeps an argument that is exactly `${user_config.x}` as that literal text when the
 * value is empty, so `--repo ${user_config.repository}` would hand the server a path named
 * `${user_config.repository}`. The server reads an empty variable as not set (TWIG_MCP_REPO as no
 * `--repo`, TWIG_MCP_DISABLE as no `--disable`, an empty token as no token), and each optional field
 * has an empty default so that a blank field becomes "" and not the placeholder.
 */
function setting(
  env: string,
  title: string,
  description: string,
  { type = "string", sensitive = false }: { type?: "string" | "directory"; sensitive?: boolean } = {},
) {
  return {
    env,
    field: { type, title, description, ...(sensitive ? { sensitive } : {}), required: false, default: "" },
  };
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

/**
 * The bundle: manifest, icon, binary (executable bit kept for macOS and Linux) and licence,
 * nothing else, compressed at `level` (9 for releases).
 */
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
