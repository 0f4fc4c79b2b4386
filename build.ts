/**
 * Compiles twig-mcp into self-contained executables and packages them.
 *
 *   bun build.ts                          host binary at dist/twig-mcp (development)
 *   bun build.ts --outfile PATH           host binary at PATH
 *   bun build.ts --target all             every platform: dist/twig-mcp-<os>-<arch>[.exe], archives,
 *                                         Claude Desktop bundles (.mcpb), dist/sha256sums.txt,
 *                                         dist/server.json, dist/homebrew/twig-mcp.rb
 *   bun build.ts --target linux-arm64,darwin-arm64   a subset (`host` names this machine's)
 *   bun build.ts --target all --npm       ... and the npm tarballs in dist/npm/ (`bun run pack`)
 *   --release-url PATTERN                 where the formula downloads archives from:
 *                                         {version}, {tag} (v<version>) and {file} are filled in
 *   --out-dir DIR                         instead of dist/
 *   --published                           for a release that goes to npm: `config` may then register
 *                                         `bunx twig-mcp` / `npx -y twig-mcp` (off by default)
 *   bun build.ts --server-json            rewrites ./server.json from package.json (after a version bump)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type BundleInfo, type RegistryInfo, serverJson } from "./build/mcpb.ts";
import { buildRelease } from "./build/release.ts";
import { fetchRuntime } from "./build/runtime.ts";
import { selectTargets, TARGETS, type Target } from "./build/targets.ts";
import pkg from "./package.json" with { type: "json" };
import { err, ok, type Result } from "./src/core/result.ts";

export interface BuildOptions {
  outfile: string;
  /** A `bun-<os>-<arch>` target; the host when omitted. */
  target?: Bun.Build.CompileTarget;
  /** The Bun runtime to embed, when Bun should not fetch the target's runtime itself. */
  executablePath?: string;
  /**
   * The build of a package published on npm: only then may `config` register `bunx twig-mcp` or
   * `npx -y twig-mcp` (src/cli/config-self-command.ts); off, it registers paths that exist.
   */
  published?: boolean;
}

export async function compileBinary({ outfile, target, executablePath, published }: BuildOptions): Promise<void> {
  const result = await Bun.build({
    entrypoints: [new URL("./src/main.ts", import.meta.url).pathname],
    minify: true,
    bytecode: true,
    define: { TWIG_MCP_PUBLISHED: published === true ? "true" : "false" },
    compile: {
      ...(target ? { target } : {}),
      ...(executablePath ? { executablePath } : {}),
      outfile,
      // A repository must not be able to inject settings or credentials into the server.
      // package.json (with the version) is bundled at build time, never read at run time.
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
  });
  if (!result.success) {
    throw new AggregateError(result.logs, `build failed for ${target ?? "host"}`);
  }
}

/**
 * Builds one target. Bun fetches a foreign platform's runtime from the npm registry by itself;
 * when that fails (no network to its default registry, a proxy it does not use) the runtime is
 * fetched with `npm pack` instead and passed in as `executablePath`.
 */
export async function compileTarget(
  target: Target,
  outfile: string,
  log: (line: string) => void,
  published = false,
): Promise<Result<void, string>> {
  const first = await compileInChild(target, outfile, published);
  if (!first.ok) {
    const reason = first.error;
    log(`Bun could not build ${target.id} by itself (${reason}); fetching ${target.runtimePackage} with npm pack`);
    const runtime = await fetchRuntime(target, Bun.version, join(tmpdir(), "twig-mcp-bun-runtimes"));
    if (!runtime.ok) {
      return err(`Bun could not fetch the ${target.id} runtime (${reason}), and neither could npm: ${runtime.error}`);
    }
    try {
      await compileBinary({ outfile, target: target.bun, executablePath: runtime.value, published });
      return ok(undefined);
    } catch (again) {
      return err(`build failed with the runtime from ${target.runtimePackage}: ${describe(again)}`);
    }
  }
  return ok(undefined);
}

/**
 * Bun prints its download of another platform's runtime ("Decompressing...") on stdout; compiled in
 * a child process, that stays out of the build's report.
 */
async function compileInChild(target: Target, outfile: string, published: boolean): Promise<Result<void, string>> {
  const flags = ["--outfile", outfile, "--bun-target", target.bun, ...(published ? ["--published"] : [])];
  const proc = Bun.spawn([process.execPath, import.meta.path, ...flags], { stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return code === 0 ? ok(undefined) : err(stderr.trim() || `exit status ${code}`);
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

export interface ProjectUrls {
  /** `https://github.com/<owner>/<name>`. */
  repositoryUrl: string;
  homepage: string;
}

/**
 * package.json's `repository` (a GitHub repository) and `homepage`: every URL a release carries
 * (downloads, the formula's homepage, the bundle's and registry's links) comes from them, so a
 * fork sets them there and nowhere else.
 */
export function projectUrls(manifest: { repository?: unknown; homepage?: unknown }): Result<ProjectUrls, string> {
  const field = manifest.repository;
  const url = typeof field === "object" && field !== null ? (field as { url?: unknown }).url : field;
  const match =
    typeof url === "string" &&
    /^(?:github:|(?:git\+)?(?:https|ssh|git):\/\/(?:git@)?github\.com\/|git@github\.com:)([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(
      url,
    );
  if (!match) {
    return err(
      'package.json needs "repository": { "type": "git", "url": "git+https://github.com/<owner>/<name>.git" } (see docs/releasing.md)',
    );
  }
  const repositoryUrl = `https://github.com/${match[1]}`;
  const homepage =
    typeof manifest.homepage === "string" && manifest.homepage !== "" ? manifest.homepage : repositoryUrl;
  return ok({ repositoryUrl, homepage });
}

const KEYWORDS = ["mcp", "model-context-protocol", "twig", "git", "stacked-branches", "jira", "github"];

/** What the Claude Desktop bundles list: the tools and prompts exactly as the server publishes them. */
export async function bundleInfo(urls: ProjectUrls): Promise<BundleInfo> {
  const { createToolRegistry } = await import("./src/cli/runtime.ts");
  const { PROMPTS, publishPrompt } = await import("./src/mcp/prompts.ts");
  return {
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    homepage: urls.homepage,
    repositoryUrl: urls.repositoryUrl,
    keywords: KEYWORDS,
    tools: createToolRegistry(new Set()).list(),
    prompts: PROMPTS.map(publishPrompt),
    icon: new Uint8Array(await Bun.file(new URL("./assets/icon.png", import.meta.url)).arrayBuffer()),
  };
}

/** `mcpb validate`'s check of a manifest (its schema for the manifest's version), without its console output. */
export async function mcpbValidator() {
  const { MANIFEST_SCHEMAS } = await import("@anthropic-ai/mcpb");
  return {
    by: `@anthropic-ai/mcpb ${pkg.devDependencies["@anthropic-ai/mcpb"]}'s schema (mcpb validate)`,
    problems: (manifest: unknown) => {
      const key = (manifest as { manifest_version?: string }).manifest_version as keyof typeof MANIFEST_SCHEMAS;
      const schema = MANIFEST_SCHEMAS[key];
      if (schema === undefined) return [`manifest_version ${String(key)} is not one mcpb knows`];
      const parsed = schema.safeParse(manifest);
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    },
  };
}

/** The MCP Registry entry's data. */
export function registryInfo(urls: ProjectUrls): RegistryInfo {
  return {
    mcpName: pkg.mcpName,
    npmName: pkg.name,
    version: pkg.version,
    description: "Read-only twig branch stacks, GitHub PR status and Jira issues for AI assistants",
    repositoryUrl: urls.repositoryUrl,
    homepage: urls.homepage,
  };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      outfile: { type: "string" },
      target: { type: "string", multiple: true },
      npm: { type: "boolean", default: false },
      "release-url": { type: "string" },
      "out-dir": { type: "string", default: "dist" },
      "server-json": { type: "boolean", default: false },
      published: { type: "boolean", default: false },
      "bun-target": { type: "string" },
    },
  });
  const log = (line: string) => console.log(line);
  const bunTarget = values["bun-target"] as Bun.Build.CompileTarget | undefined;
  if (bunTarget !== undefined && values.outfile !== undefined) {
    // One target's binary, for compileTarget's child process; its stderr is the reason of a failure.
    try {
      await compileBinary({ outfile: values.outfile, target: bunTarget, published: values.published as boolean });
      return 0;
    } catch (error) {
      console.error(describe(error));
      return 1;
    }
  }
  if (!values["server-json"] && !values.target && !values.npm) {
    const outfile = values.outfile ?? join(values["out-dir"] as string, "twig-mcp");
    const started = performance.now();
    await compileBinary({ outfile });
    log(`built ${outfile} in ${Math.round(performance.now() - started)} ms`);
    return 0;
  }
  const urls = projectUrls(pkg);
  if (!urls.ok) {
    console.error(urls.error);
    return 2;
  }
  if (values["server-json"]) {
    // ./server.json from package.json, after a version bump (no checksums: see serverJson in build/mcpb.ts).
    const path = new URL("./server.json", import.meta.url).pathname;
    writeFileSync(path, serverJson(registryInfo(urls.value)));
    log(`wrote ${path} for version ${pkg.version}`);
    return 0;
  }
  const { targets, unknown } = selectTargets(values.target ?? ["all"]);
  if (unknown.length > 0) {
    console.error(
      `unknown target ${unknown.join(", ")}; choose from all, host, ${TARGETS.map((t) => t.id).join(", ")}`,
    );
    return 2;
  }
  const here = new URL(".", import.meta.url).pathname;
  const result = await buildRelease({
    targets,
    outDir: values["out-dir"] as string,
    info: { ...pkg, homepage: urls.value.homepage, keywords: KEYWORDS },
    urlPattern:
      values["release-url"] ||
      process.env.TWIG_MCP_RELEASE_URL ||
      `${urls.value.repositoryUrl}/releases/download/{tag}/{file}`,
    bundles: {
      info: await bundleInfo(urls.value),
      license: readFileSync(join(here, "LICENSE"), "utf8"),
      validate: await mcpbValidator(),
    },
    registry: registryInfo(urls.value),
    formulaDescription: "Read-only MCP server for twig branch stacks, GitHub PRs and Jira issues",
    npm: values.npm as boolean,
    launcher: readFileSync(join(here, "build", "npm-launcher.cjs"), "utf8"),
    readme: readFileSync(join(here, "README.md"), "utf8"),
    compile: (target, outfile) => compileTarget(target, outfile, log, values.published as boolean),
    log,
    ...(process.env.SOURCE_DATE_EPOCH ? { mtime: new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000) } : {}),
  });
  if (result.failed.length > 0) {
    console.error(`could not build: ${result.failed.map((f) => `${f.target.id} (${f.error})`).join("; ")}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) process.exit(await main());
