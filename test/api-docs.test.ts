import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// Issue 17: the API reference is generated with TypeDoc from the TSDoc (`pnpm docs:api` writes
// docs/api); this check fails on a broken {@link} or a public declaration that names a type the
// package does not export (typedoc.json: validation, treatWarningsAsErrors). It takes about a
// minute, so it runs on the Node 22 line only, like the packed-install test.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));
const onThisLine = Number(process.versions.node.split('.')[0]) === 22;

it.runIf(onThisLine)(
  'the API reference builds without a broken link or an unexported type in a public signature',
  async () => {
    const typedoc = fileURLToPath(new URL('../node_modules/typedoc/bin/typedoc', import.meta.url));
    const outcome = await run(process.execPath, [typedoc, '--emit', 'none'], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    expect(outcome.output).not.toMatch(/\[warning\]|\[error\]/);
    expect(outcome.code).toBe(0);
  },
  300_000,
);
