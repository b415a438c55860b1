import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Heavy or native modules that must load only on the first call that needs them. */
const HEAVY = [
  'playwright-core',
  'playwright/',
  'typescript-language-server',
  'vscode-langservers-extracted',
  'web-tree-sitter',
  'vscode-languageserver-protocol',
  'vscode-jsonrpc',
  '/node_modules/typescript/',
  'keytar',
  '@napi-rs',
];

/** Lists a W catalogue's tools in a child process; returns the count printed and the modules loaded. */
async function listTools(omitFamilies: string[] = []): Promise<{ count: string; loaded: string[] }> {
  const directory = await mkdtemp(path.join(tmpdir(), 'catalog-lazy-'));
  const log = path.join(directory, 'loads.txt');
  try {
    const { stdout } = await run(
      process.execPath,
      [
        '--conditions=@assistant-kit/source',
        '--import',
        'tsx',
        '--import',
        path.join(fixtures, 'record-loads.mjs'),
        path.join(fixtures, 'list-tools.ts'),
        directory,
        omitFamilies.join(','),
      ],
      { cwd: path.join(repositoryRoot, 'packages/tool-catalog'), env: { ...process.env, LOAD_LOG: log } },
    );
    return { count: stdout.trim(), loaded: (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('lazy loading', () => {
  it('importing the root and listing every configuration tool loads no heavy or native module', async () => {
    const { count, loaded } = await listTools();
    expect(count).toBe('93');
    expect(loaded.some((url) => url.includes('tools-browser'))).toBe(true);
    expect(loaded.filter((url) => HEAVY.some((name) => url.includes(name)))).toEqual([]);
  });

  it('a catalogue without the browser and code families never imports their packages', async () => {
    const { count, loaded } = await listTools(['browser', 'code']);
    // W's 31 tools less 10 browser and 11 code tools, in three formats.
    expect(count).toBe(String(3 * (31 - 10 - 11)));
    expect(loaded.filter((url) => /tools-(browser|code)/.test(url))).toEqual([]);
  });
});
