import { afterEach, describe, expect, it, vi } from 'vitest';
import { callOk, type FixtureSession, openWrittenProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000 });

// A fresh clone of ky (`"extends": "@sindresorhus/tsconfig"`, no node_modules): code_diagnostics
// answered 83 errors for one clean file. TypeScript had checked it with its own defaults (ES5, no
// Promise constructor), since the settings the project extends were not installed.

const source =
  'export async function total(values: Record<string, number>): Promise<number> {\n  return Object.values(values).reduce((sum, value) => sum + value, 0);\n}\n';
const sharedSettings = JSON.stringify({
  compilerOptions: { target: 'es2022', lib: ['es2022'], strict: true },
});

let session: FixtureSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('code_diagnostics under settings TypeScript cannot read', () => {
  it('says the check is incomplete when a tsconfig extends a package that is not installed', async () => {
    session = await openWrittenProject('unread-settings', {
      'package.json': JSON.stringify({ name: 'totals', devDependencies: { '@acme/tsconfig': '^1.0.0' } }),
      'tsconfig.json': '{\n  // shared settings\n  "extends": "@acme/tsconfig",\n  "include": ["src"],\n}\n',
      'src/total.ts': source,
    });
    const { data, text } = await callOk(session, 'code_diagnostics', { glob: 'src/**' });
    expect(text.split('\n')[0]).toMatch(
      /^INCOMPLETE: TypeScript could not read the project's settings \(tsconfig\.json extends "@acme\/tsconfig", not installed\), so it checked with its defaults/,
    );
    expect(data).toMatchObject({
      complete: false,
      unread_settings: [{ config: 'tsconfig.json', extends: '@acme/tsconfig', reason: 'not installed' }],
    });
    // TypeScript's own answer is still given: the defaults' errors are there, below the warning.
    expect((data.counts as { error: number }).error).toBeGreaterThan(0);
  });

  it('checks with the settings once the package is installed, and says nothing more', async () => {
    session = await openWrittenProject('read-settings', {
      'package.json': JSON.stringify({ name: 'totals', devDependencies: { '@acme/tsconfig': '^1.0.0' } }),
      'tsconfig.json': JSON.stringify({ extends: '@acme/tsconfig', include: ['src'] }),
      'node_modules/@acme/tsconfig/package.json': JSON.stringify({
        name: '@acme/tsconfig',
        version: '1.0.0',
      }),
      'node_modules/@acme/tsconfig/tsconfig.json': sharedSettings,
      'src/total.ts': source,
    });
    const { data, text } = await callOk(session, 'code_diagnostics', { glob: 'src/**' });
    expect(text.split('\n')[0]).toBe('1 files checked: 0 errors, 0 warnings, 0 notes; 0 unresolved.');
    expect(data).toMatchObject({ complete: true });
    expect(data.unread_settings).toBeUndefined();
  });

  it('names an extended file that is not there, for the config nearest the file', async () => {
    session = await openWrittenProject('missing-base', {
      'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2022' } }),
      'packages/app/tsconfig.json': JSON.stringify({
        extends: ['../../tsconfig.json', '../../tsconfig.base'],
      }),
      'packages/app/src/total.ts': source,
    });
    const { data } = await callOk(session, 'code_diagnostics', { glob: 'packages/app/**' });
    expect(data.unread_settings).toEqual([
      { config: 'packages/app/tsconfig.json', extends: '../../tsconfig.base', reason: 'not found' },
    ]);
  });
});
