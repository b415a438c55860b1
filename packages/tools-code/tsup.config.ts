import { defineConfig } from 'tsup';

export default defineConfig({
  // The analysis worker is its own entry: worker threads load it by URL next to the bundle.
  entry: { index: 'src/index.ts', 'analysis-worker': 'src/syntax/analysis-worker.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
  sourcemap: true,
});
