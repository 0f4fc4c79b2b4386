/**
 * Start-up experiment entry point: twig-mcp as it was before src/github/client.ts loaded Octokit on
 * first use, i.e. with Octokit, its plugins and Bottleneck evaluated at start-up. Shows what the
 * lazy loading buys.
 */
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck/light.js";
import "../../src/main.ts";

(globalThis as Record<string, unknown>).__twigMcpEagerOctokit = [Octokit.plugin(throttling, retry), Bottleneck];
