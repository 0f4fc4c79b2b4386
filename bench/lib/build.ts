/**
 * Builds every executable the bench runs with the project's own compile flags: build.ts's
 * `compileBinary` is called for each, and for the floors its `Bun.build` call is redirected to
 * another entry point, so a flag added to build.ts applies to the floors too.
 */
import type { BunPlugin } from "bun";
import { compileBinary } from "../../build.ts";

export interface BuiltExecutable {
  path: string;
  /** The options `Bun.build` was called with, minus the entry point, for the report. */
  flags: string;
  ms: number;
}

export interface BuildTweaks {
  /** Entry point instead of src/main.ts. */
  entry?: string;
  /** Extra `compile` options (`jitPolicy`, …) on top of build.ts's. */
  compile?: Record<string, unknown>;
  /** Bundler plugins added to build.ts's. */
  plugins?: BunPlugin[];
}

type BuildConfig = Parameters<typeof Bun.build>[0];

/** Builds `outfile` through build.ts's `compileBinary`, applying `tweaks` to its `Bun.build` call. */
export async function buildExecutable(outfile: string, tweaks: BuildTweaks = {}): Promise<BuiltExecutable> {
  const original = Bun.build;
  let used: BuildConfig | null = null;
  const redirected = (config: BuildConfig) => {
    const compile = (config as { compile?: unknown }).compile;
    const next = {
      ...config,
      ...(tweaks.entry ? { entrypoints: [tweaks.entry] } : {}),
      ...(tweaks.compile && typeof compile === "object" ? { compile: { ...compile, ...tweaks.compile } } : {}),
      ...(tweaks.plugins ? { plugins: [...(config.plugins ?? []), ...tweaks.plugins] } : {}),
    } as BuildConfig;
    used = next;
    return original.call(Bun, next);
  };
  const started = performance.now();
  (Bun as { build: unknown }).build = redirected;
  try {
    await compileBinary({ outfile });
  } finally {
    (Bun as { build: unknown }).build = original;
  }
  if (used === null) throw new Error("build.ts did not call Bun.build");
  return { path: outfile, flags: describeFlags(used), ms: performance.now() - started };
}

/** `minify bytecode compile{autoloadDotenv:false,…}`: the options that shape start-up. */
export function describeFlags(config: BuildConfig): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (key === "entrypoints" || key === "plugins") continue;
    if (key === "compile" && typeof value === "object" && value !== null) {
      const inner = Object.entries(value)
        .filter(([k]) => k !== "outfile")
        .map(([k, v]) => `${k}:${JSON.stringify(v)}`);
      parts.push(`compile{${inner.join(",")}}`);
    } else if (value === true) {
      parts.push(key);
    } else {
      parts.push(`${key}=${JSON.stringify(value)}`);
    }
  }
  return parts.join(" ");
}
