/**
 * The layering of src/, checked in CI (`bun run depcheck`, also run by the test suite).
 * Data flows one way: readers → domain → tool handlers → MCP wire → command line. A folder may
 * import from folders in earlier layers only, never from a later one or from a sibling in its own
 * layer, so no cycle can form between folders; `no-circular` forbids cycles between files. Type
 * imports count (tsPreCompilationDeps), since a type cycle is a design cycle all the same.
 */
const LAYERS = [
  ["fs"], // file reading: no project imports at all
  ["core"], // Context, Result, errors, log
  ["git"], // the .git reader
  ["twig"], // twig's state and registry, the branch graph
  ["repo"], // which repository a call is about
  ["creds"], // netrc, gh hosts, credential chains
  ["github", "jira"], // the services
  ["tools"], // tool declarations and handlers, the context with its lazily built clients
  ["prompts"],
  ["mcp"], // the wire, resource subscriptions included
  ["cli"], // the command line; release packaging lives outside src/, in build/
];

const layerRules = LAYERS.flatMap((layer, index) => {
  const later = LAYERS.slice(index + 1).flat();
  return layer.map((folder) => {
    const forbidden = [...later, ...layer.filter((f) => f !== folder)];
    const to = forbidden.length === 0 ? "^src/main\\.ts$" : `^src/((${forbidden.join("|")})/|main\\.ts$)`;
    return {
      name: `layer-${folder}`,
      comment: `src/${folder}/ may import only from earlier layers (see LAYERS in .dependency-cruiser.cjs)`,
      severity: "error",
      from: { path: `^src/${folder}/` },
      to: { path: to },
    };
  });
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle between files, type imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-loose-src-files",
      comment: "Every module lives in a folder named for its job; src/main.ts is the only entry point.",
      severity: "error",
      from: { path: "^src/[^/]+\\.ts$", pathNot: "^src/main\\.ts$" },
      to: {},
    },
    {
      name: "src-never-imports-tests",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
