import { type ArchiveEntry, zip } from "./archive.ts";
import { installedName, TARGETS, type Target } from "./targets.ts";

/**
 * MCP Bundles (`.mcpb`, formerly DXT): the zip Claude Desktop installs with a double-click. Its
 * `manifest.json` says how to start the server and which settings to ask for; fields marked
 * `sensitive` are kept in the OS keychain.
 */

/** The targets a bundle is made for: Claude Desktop's platforms, and Linux x64 for other hosts. */
export const BUNDLE_TARGETS = ["darwin-arm64", "darwin-x64", "windows-x64", "linux-x64"] as const;

export function bundleTargets(): Target[] {
  return TARGETS.filter((t) => (BUNDLE_TARGETS as readonly string[]).includes(t.id));
}

export function bundleName(target: Target): string {
  return `twig-mcp-${target.id}.mcpb`;
}

/** Where the binary sits inside the bundle. */
export function bundleEntryPoint(target: Target): string {
  return `server/${installedName(target)}`;
}

export interface BundleTool {
  name: string;
  description: string;
}

export interface BundlePrompt {
  name: string;
  description: string;
  arguments: readonly { name: string }[];
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
  tools: readonly BundleTool[];
  prompts: readonly BundlePrompt[];
}

/** Node's `process.platform` names, which is what `compatibility.platforms` takes. */
function platformOf(target: Target): "darwin" | "win32" | "linux" {
  return target.os === "windows" ? "win32" : target.os;
}

/**
 * Every setting goes to the server as an environment variable, none as an argument: a host fills
 * `${user_config.x}` inside a string (an `env` value) with an empty string when the field is left
 * blank, but keeps an argument that is exactly `${user_config.x}` as that literal text when the
 * value is empty, so `--repo ${user_config.repository}` would hand the server a path named
 * `${user_config.repository}`. The server reads an empty variable as not set (TWIG_MCP_REPO as no
 * `--repo`, TWIG_MCP_DISABLE as no `--disable`, an empty token as no token), and each optional field
 * has an empty default so that a blank field becomes "" and not the placeholder.
 */
const USER_CONFIG = {
  repository: {
    type: "directory",
    title: "Default repository",
    description:
      "The git repository the tools answer about when the assistant names none. Leave empty to have the assistant name a repository (any twig has registered) in each request.",
    required: false,
    default: "",
  },
  github_token: {
    type: "string",
    title: "GitHub token",
    description:
      "A GitHub token for pull request status (read access to pull requests and checks). Leave empty to use the GitHub CLI's login or ~/.netrc.",
    sensitive: true,
    required: false,
    default: "",
  },
  jira_host: {
    type: "string",
    title: "Jira site",
    description: "Your Jira site, for example acme.atlassian.net. Leave empty if you do not use Jira.",
    required: false,
    default: "",
  },
  jira_email: {
    type: "string",
    title: "Jira email",
    description: "The email address of your Atlassian account (Jira Cloud, with the API token below).",
    required: false,
    default: "",
  },
  jira_api_token: {
    type: "string",
    title: "Jira API token",
    description: "A Jira Cloud API token, used with the email above. Leave empty to use ~/.netrc.",
    sensitive: true,
    required: false,
    default: "",
  },
  jira_personal_token: {
    type: "string",
    title: "Jira personal access token",
    description: "For Jira Data Center instead of an email and API token.",
    sensitive: true,
    required: false,
    default: "",
  },
  disable: {
    type: "string",
    title: "Tool groups to turn off",
    description: "Comma-separated, from: github, jira, prompts, resources. Leave empty to keep them all.",
    required: false,
    default: "",
  },
} as const;

export type UserConfigKey = keyof typeof USER_CONFIG;

/** user_config key → the environment variable the server reads it from. */
export const USER_CONFIG_ENV: Readonly<Record<UserConfigKey, string>> = {
  repository: "TWIG_MCP_REPO",
  github_token: "GITHUB_TOKEN",
  jira_host: "JIRA_HOST",
  jira_email: "JIRA_EMAIL",
  jira_api_token: "JIRA_API_TOKEN",
  jira_personal_token: "JIRA_PERSONAL_TOKEN",
  disable: "TWIG_MCP_DISABLE",
};

/** The bundle's `manifest.json` for one target. */
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
    keywords: [...info.keywords],
    server: {
      type: "binary",
      entry_point: entryPoint,
      mcp_config: {
        command: `\${__dirname}/${entryPoint}`,
        args: [],
        env: Object.fromEntries(
          (Object.keys(USER_CONFIG_ENV) as UserConfigKey[]).map((key) => [
            USER_CONFIG_ENV[key],
            `\${user_config.${key}}`,
          ]),
        ),
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
    compatibility: { platforms: [platformOf(target)] },
    user_config: USER_CONFIG,
  };
}

/**
 * The bundle: manifest, binary (executable bit kept for macOS and Linux) and licence, nothing
 * else, compressed at `level` (9 for releases).
 */
export function bundle(
  info: BundleInfo,
  target: Target,
  binary: Uint8Array<ArrayBuffer>,
  license: string,
  mtime: Date,
  level = 9,
): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const entries: ArchiveEntry[] = [
    {
      name: "manifest.json",
      data: encoder.encode(`${JSON.stringify(bundleManifest(info, target), null, 2)}\n`),
      mode: 0o644,
    },
    { name: bundleEntryPoint(target), data: binary, mode: 0o755 },
    { name: "LICENSE", data: encoder.encode(license), mode: 0o644 },
  ];
  return zip(entries, mtime, level);
}
