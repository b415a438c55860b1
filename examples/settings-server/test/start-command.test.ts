import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

it('starts from `pnpm start -- --port 0` (a literal -- before the options) and serves the page', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'ak-start-'));
  // What pnpm runs for `pnpm start -- --port 0 --data <dir>`: the `--` reaches the script.
  const child = spawn(
    process.execPath,
    ['--conditions=@assistant-kit/source', '--import', 'tsx', MAIN, '--', '--port', '0', '--data', directory],
    { env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk;
        const match = /settings server: (http:\/\/[^\s]+)\/settings/.exec(output);
        if (match) resolve(match[1]!);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
    expect(output).not.toContain('ERR_PARSE_ARGS');
    expect(Number(new URL(address).port)).toBeGreaterThan(0);
    expect((await fetch(`${address}/login`)).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(directory, { recursive: true, force: true });
  }
});
