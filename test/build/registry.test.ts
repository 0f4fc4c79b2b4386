import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serverJson } from "../../build/mcpb.ts";
import { mainPackage } from "../../build/npm.ts";
import { projectUrls, registryInfo } from "../../build.ts";
import pkg from "../../package.json" with { type: "json" };

const root = join(import.meta.dir, "..", "..");
const read = (name: string) => readFileSync(join(root, name), "utf8");

describe("server.json", () => {
  const checkedIn = JSON.parse(read("server.json")) as {
    $schema: string;
    name: string;
    version: string;
    description: string;
    packages: Array<{ registryType: string; identifier: string; version: string }>;
  };

  test("is what `bun build.ts --server-json` writes from package.json, at package.json's version", () => {
    const urls = projectUrls(pkg);
    if (!urls.ok) throw new Error(urls.error);
    expect(read("server.json")).toBe(serverJson(registryInfo(urls.value)));
    expect(checkedIn.version).toBe(pkg.version);
    for (const entry of checkedIn.packages) expect(entry.version).toBe(pkg.version);
  });

  test("names the npm package, whose package.json proves ownership with mcpName", () => {
    expect(checkedIn.$schema).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
    expect(checkedIn.name).toBe(pkg.mcpName);
    expect(checkedIn.packages[0]).toMatchObject({ registryType: "npm", identifier: pkg.name, version: pkg.version });
    const tarball = mainPackage(
      { name: pkg.name, version: pkg.version, description: "", license: "MIT", mcpName: pkg.mcpName },
      "",
      "",
    );
    const json = new TextDecoder().decode(Bun.gunzipSync(tarball.bytes));
    expect(json).toContain(`"mcpName": "${pkg.mcpName}"`);
  });

  test("names each release bundle by its download URL on this project's releases", () => {
    const bundles = checkedIn.packages.filter((p) => p.registryType === "mcpb").map((p) => p.identifier);
    expect(bundles).toEqual(
      ["linux-x64", "darwin-x64", "darwin-arm64", "windows-x64"].map(
        (id) => `https://github.com/eddieland/twig-mcp/releases/download/v${pkg.version}/twig-mcp-${id}.mcpb`,
      ),
    );
  });

  test("stays within the registry's limits", () => {
    expect(checkedIn.description.length).toBeLessThanOrEqual(100);
    expect(checkedIn.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/);
  });
});

describe("project URLs", () => {
  test("come from package.json's repository and homepage", () => {
    expect(pkg.repository.url).toBe("git+https://github.com/eddieland/twig-mcp.git");
    expect(projectUrls(pkg)).toEqual({
      ok: true,
      value: {
        repositoryUrl: "https://github.com/eddieland/twig-mcp",
        homepage: "https://github.com/eddieland/twig-mcp",
      },
    });
    expect(projectUrls({ repository: "github:acme/fork", homepage: "https://acme.dev" })).toEqual({
      ok: true,
      value: { repositoryUrl: "https://github.com/acme/fork", homepage: "https://acme.dev" },
    });
    expect(projectUrls({ repository: "https://github.com/acme/fork/" })).toEqual({
      ok: true,
      value: { repositoryUrl: "https://github.com/acme/fork", homepage: "https://github.com/acme/fork" },
    });
  });

  test("are never guessed: without a GitHub repository the release build stops and says what to set", () => {
    for (const manifest of [{}, { repository: "https://gitlab.com/acme/fork" }, { repository: { type: "git" } }]) {
      const urls = projectUrls(manifest);
      expect(urls.ok).toBe(false);
      if (!urls.ok) expect(urls.error).toContain('package.json needs "repository"');
    }
  });
});

describe("licence", () => {
  test("LICENSE is the MIT licence package.json names", () => {
    expect(pkg.license).toBe("MIT");
    const text = read("LICENSE");
    expect(text.startsWith("MIT License\n\nCopyright (c) 2026 twig-mcp contributors\n")).toBe(true);
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });
});
