import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const folder = fileURLToPath(new URL('../', import.meta.url));

it.each([
  [['--verbose'], /unknown option --verbose/],
  [['/nonexistent-folder-for-the-example'], /is not a folder/],
  [['.', 'main', 'extra'], /too many arguments: extra/],
] as const)(
  'answers %j with the reason and the usage, not a stack trace',
  async (args, reason) => {
    // What `pnpm --filter @assistant-kit/example-mcp-client start -- …` runs.
    const failure = await run(
      process.execPath,
      ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/main.ts', ...args],
      { cwd: folder },
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(reason);
    expect(failure?.stderr).toContain('Usage: pnpm --filter @assistant-kit/example-mcp-client start --');
    expect(failure?.stderr).not.toMatch(/^\s+at /m);
  },
  60_000,
);
