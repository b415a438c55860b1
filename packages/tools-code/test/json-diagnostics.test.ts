import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { languageOfPath } from '../src/languages.js';
import {
  callOk,
  type FixtureSession,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On trpc (fetched for the probe, not kept), code_diagnostics counted "Comments are not permitted
// in JSON" in .vscode/settings.json as an error, as it did every commented tsconfig.json with
// its trailing commas; and renovate.json's https schema gave a warning, "Unable to load schema
// from '…': Unhandled method vscode/content", a check that did not happen counted as a finding.
describe('code_diagnostics on JSON files', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('json-diagnostics', {
      'tsconfig.json': '{\n  // strict everywhere\n  "compilerOptions": { "strict": true, },\n}\n',
      'tsconfig.build.json': '{\n  /* the build */\n  "extends": "./tsconfig.json"\n}\n',
      '.vscode/settings.json': '{\n  // the editor\n  "editor.tabSize": 2,\n}\n',
      '.eslintrc.json': '{\n  // rules\n  "rules": {},\n}\n',
      'data.json': '{\n  // not allowed here\n  "a": 1\n}\n',
      'renovate.json':
        '{\n  "$schema": "https://docs.renovatebot.com/renovate-schema.json",\n  "extends": ["config:base"]\n}\n',
    });
  });
  afterAll(() => session?.close());

  it('opens the configurations editors read with comments as JSON with comments', () => {
    expect(languageOfPath('tsconfig.json')?.languageId).toBe('jsonc');
    expect(languageOfPath('packages/a/tsconfig.build.json')?.languageId).toBe('jsonc');
    expect(languageOfPath('.vscode/launch.json')?.languageId).toBe('jsonc');
    expect(languageOfPath('.devcontainer/devcontainer.json')?.languageId).toBe('jsonc');
    expect(languageOfPath('package.json')?.languageId).toBe('json');
    expect(languageOfPath('packages/a/tsconfig-base.json')?.languageId).toBe('jsonc');
    expect(languageOfPath('data/settings.json')?.languageId).toBe('json');
  });

  it('reports what their readers refuse, and says which schema it could not check against', async () => {
    const { data, text } = await callOk(session, 'code_diagnostics', {});
    const problems = (data.diagnostics as Structured[]).map(
      (problem) => `${problem.path}:${problem.line} ${problem.severity} ${problem.code}`,
    );
    // A comment is an error in plain JSON only. ESLint's reader takes comments, not trailing
    // commas (a warning, as editors show it); TypeScript's and VS Code's take both.
    expect(problems).toEqual(['.eslintrc.json:3 warning 519', 'data.json:2 error 521']);
    expect(text.split('\n')[0]).toBe(
      '6 files checked (1 JSON file without the schema it names: schemas are not downloaded here: no network access): 1 errors, 1 warnings, 0 notes; 0 unresolved.',
    );
    expect(data.schema_not_loaded).toEqual([
      {
        path: 'renovate.json',
        schema: 'https://docs.renovatebot.com/renovate-schema.json',
        reason: 'schemas are not downloaded here: no network access',
      },
    ]);
    expect(text).toContain(
      'Note: renovate.json: its JSON schema (https://docs.renovatebot.com/renovate-schema.json) was not loaded, so it was checked as JSON only.',
    );
  });
});
