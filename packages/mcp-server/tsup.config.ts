import { defineConfig, type Options } from 'tsup';

const common = {
  format: ['esm'],
  target: 'node20',
  sourcemap: true,
} satisfies Options;

export default defineConfig([
  // The library: the SDK stays a dependency, so `createCatalogServer` returns the caller's SDK `Server`.
  { ...common, entry: ['src/index.ts'], dts: true, clean: true },
  {
    ...common,
    entry: ['src/bin.ts'],
    // Why the bin bundles the SDK and its schema libraries: Node 20 resolves, reads and links every
    // ES module file separately, and the SDK's server with zod and ajv is a few hundred of them
    // (about a third of a second of start-up). One file loads in a few milliseconds. The
    // workspace packages stay external: they must share one tool-core and find their own assets.
    noExternal: [
      /^@modelcontextprotocol\/sdk/,
      /^zod/,
      /^ajv/,
      /^fast-(uri|deep-equal)$/,
      /^json-schema-traverse$/,
    ],
    // Bundled CommonJS (ajv) calls require() for Node built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    dts: false,
    clean: false,
  },
]);
