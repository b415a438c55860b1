import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/typebox.ts', 'src/typebox-compile.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
  sourcemap: true,
  // TypeBox is bundled into the typebox entries (see src/typebox.ts); splitting keeps one copy of
  // it, shared by both, in chunks of their own.
  noExternal: [/^typebox(\/|$)/],
  splitting: true,
});
