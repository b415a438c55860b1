import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packagesDirectory = fileURLToPath(new URL('./packages/', import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against each package's TypeScript source, not its build output.
    alias: [
      {
        find: /^@assistant-kit\/([a-z-]+)$/,
        replacement: `${packagesDirectory}$1/src/index.ts`,
      },
      // A package's other entries (the kernel's `./typebox`) are its src/<name>.ts.
      {
        find: /^@assistant-kit\/([a-z-]+)\/([a-z-]+)$/,
        replacement: `${packagesDirectory}$1/src/$2.ts`,
      },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Fixture projects carry their own test suites (some failing on purpose): run_tests runs them.
    exclude: ['**/node_modules/**', '**/test/fixtures/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // CI runs the suite once per Node line and names each run's report through VITEST_REPORT.
    reporters: ['default', ['json', { outputFile: process.env.VITEST_REPORT ?? 'reports/vitest.json' }]],
  },
});
