import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callError, callOk, type FixtureSession, openWrittenProject } from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const latin1 = Buffer.concat([
  Buffer.from('var app = exports = module.exports = {};\r\n\r\n// Caf', 'latin1'),
  Buffer.from([0xe9]),
  Buffer.from(' helper\r\napp.use = function use(fn) {\r\n  return fn;\r\n};\r\n', 'latin1'),
]);
const withBom = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    '// Café\nexport function greet(name: string): string {\n  return name;\n}\ngreet("x");\n',
    'utf8',
  ),
]);

// A rename applied to a Latin-1 file wrote the language server's UTF-8 reading of it back: its `é`
// (one byte, E9) became EF BF BD, a change nobody asked for and the preview never showed.
describe('code edits on files that are not plain UTF-8', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('edit-encodings', { 'main.js': "require('./app').use(1);\n" });
    await writeFile(path.join(session.root, 'app.js'), latin1);
    await writeFile(path.join(session.root, 'greet.ts'), withBom);
  });
  afterAll(() => session?.close());

  it('refuses to edit a file that is not UTF-8, and changes nothing', async () => {
    const error = await callError(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'app.js',
      symbol: 'use',
      new_name: 'mount',
    });
    expect(error.code).toBe('UNSUPPORTED_EDIT');
    expect(error.message).toContain('app.js is not UTF-8 text');
    expect(await readFile(path.join(session.root, 'app.js'))).toEqual(latin1);
  });

  it('edits a UTF-8 file with a byte-order mark and keeps the mark and its text', async () => {
    const { text } = await callOk(session, 'code_intelligence', {
      operation: 'preview_rename',
      path: 'greet.ts',
      symbol: 'greet',
      new_name: 'welcome',
    });
    const token = /edit_token (\S+)/.exec(text)![1];
    await callOk(session, 'code_intelligence', {
      operation: 'apply_rename',
      path: 'greet.ts',
      edit_token: token,
    });
    const bytes = await readFile(path.join(session.root, 'greet.ts'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe(
      '// Café\nexport function welcome(name: string): string {\n  return name;\n}\nwelcome("x");\n',
    );
  });
});
