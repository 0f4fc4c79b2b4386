/**
 * Compiles twig-mcp into a self-contained executable.
 *
 *   bun build.ts                 host binary at dist/twig-mcp
 *   bun build.ts --outfile PATH  host binary at PATH
 */
import { parseArgs } from "node:util";

export interface BuildOptions {
  outfile: string;
  /** A `bun-<os>-<arch>` target; the host when omitted. */
  target?: Bun.Build.CompileTarget;
}

export async function compileBinary({ outfile, target }: BuildOptions): Promise<void> {
  const result = await Bun.build({
    entrypoints: [new URL("./src/main.ts", import.meta.url).pathname],
    minify: true,
    bytecode: true,
    compile: {
      ...(target ? { target } : {}),
      outfile,
      // A repository must not be able to inject settings or credentials into the server.
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

if (import.meta.main) {
  const { values } = parseArgs({ options: { outfile: { type: "string", default: "dist/twig-mcp" } } });
  const started = performance.now();
  await compileBinary({ outfile: values.outfile as string });
  console.log(`built ${values.outfile} in ${Math.round(performance.now() - started)} ms`);
}
