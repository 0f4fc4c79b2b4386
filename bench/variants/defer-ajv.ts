import type { BunPlugin } from "bun";

/** The line in the SDK's server module that loads Ajv (and its formats) whenever the module loads. */
export const EAGER_AJV_IMPORT = "import { AjvJsonSchemaValidator } from '../validation/ajv-provider.js';";

/** What stands in for it: `Server` only builds one when it is given no validator, and twig-mcp always gives one. */
const STAND_IN =
  "const AjvJsonSchemaValidator = class { constructor() { throw new Error('twig-mcp: Server must be given a jsonSchemaValidator (Ajv is loaded on first use)'); } };";

/**
 * Start-up experiment (a bundler plugin for a variant build): Ajv and its formats are about 2.5 ms
 * of every start-up, evaluated because the SDK's server module imports them at the top, though
 * they are needed only to check a client's answer to an elicitation, which twig-mcp never asks for.
 * This plugin drops that import, so LazyJsonSchemaValidator (src/mcp/lazy-schema-validator.ts)
 * loads Ajv the first time a schema is checked. Not shipped: it saves those milliseconds, but the
 * server then settles about 12 MiB higher under sustained load (test/hardening/load.test.ts), the
 * same state the raised JIT policy falls into. A build whose SDK no longer has the line fails.
 */
export const deferAjv: BunPlugin = {
  name: "defer-ajv",
  setup(build) {
    build.onLoad(
      { filter: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/ },
      async (args) => {
        const source = await Bun.file(args.path).text();
        if (!source.includes(EAGER_AJV_IMPORT)) {
          throw new Error(
            `defer-ajv: ${args.path} no longer imports Ajv as expected; update bench/variants/defer-ajv.ts`,
          );
        }
        return { contents: source.replace(EAGER_AJV_IMPORT, STAND_IN), loader: "js" };
      },
    );
  },
};
