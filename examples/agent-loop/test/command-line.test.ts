import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const folder = fileURLToPath(new URL('../', import.meta.url));

async function start(args: string[]) {
  // What `pnpm --filter @assistant-kit/example-agent-loop start -- …` runs.
  return run(
    process.execPath,
    ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/main.ts', ...args],
    {
      cwd: folder,
    },
  ).then(
    (result) => ({ code: 0, ...result }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

it.each([
  [['--bogus'], /Unknown option '--bogus'/],
  [['--workspace', '.', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm'], /a task are required/],
  [
    ['--workspace', '.', '--base-url', 'u', '--model', 'm', '--configuration', 'X', 'task'],
    /W, U or R, not "X"/,
  ],
  [
    ['--workspace', '.', '--base-url', 'u', '--model', 'm', '--permission-mode', 'yolo', 'task'],
    /unknown permission mode "yolo"/,
  ],
] as const)(
  'answers %j with the reason and the usage, not a stack trace',
  async (args, reason) => {
    const { code, stderr } = await start([...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(reason);
    expect(stderr).toContain('Usage: pnpm --filter @assistant-kit/example-agent-loop start --');
    expect(stderr).not.toMatch(/^\s+at /m);
  },
  60_000,
);
