/**
 * Start-up experiment entry point: twig-mcp as it was before src/github/client.ts loaded Octokit on
 * first use, i.e. with Octokit evaluated at start-up. Shows what the lazy loading buys.
 */
import { Octokit } from "@octokit/rest";
import "../../src/main.ts";

(globalThis as Record<string, unknown>).__twigMcpEagerOctokit = Octokit;
