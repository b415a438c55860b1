import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeToolFamily, createCodeTools, type LanguageServerRegistration } from '../src/index.js';

const hangingServer = fileURLToPath(new URL('./fixtures/hanging-language-server.mjs', import.meta.url));

let root: string;
let family: CodeToolFamily;
let runtime: ToolRuntime;
let cancelLog: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-code-hang-'));
  cancelLog = path.join(root, 'cancelled.log');
  await writeFile(path.join(root, 'notes.slow'), 'alpha beta\n');
  const slowLanguage: LanguageServerRegistration = {
    id: 'slow-language',
    languageIds: ['slow'],
    fileExtensions: ['.slow'],
    command: () => ({
      command: process.execPath,
      args: [hangingServer],
      env: { HANGING_SERVER_LOG: cancelLog },
    }),
  };
  const workspace = await Workspace.open(root);
  family = createCodeTools({ workspace, languageServers: [slowLanguage], requestTimeoutMs: 1_500 });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
});

afterAll(async () => {
  await family?.close();
  await rm(root, { recursive: true, force: true });
});

describe('a registered language server that hangs', () => {
  it('times out the request, cancels it on the server, and keeps serving other requests', async () => {
    const stuck = await runtime.call('code_document_symbols', { path: 'notes.slow' });
    expect(stuck.isError).toBe(true);
    expect((stuck.structuredContent as { error: { code: string } }).error.code).toBe(
      'LANGUAGE_SERVER_TIMEOUT',
    );
    // The server is still usable for requests it does answer.
    const hover = await runtime.call('code_intelligence', {
      operation: 'hover',
      path: 'notes.slow',
      line: 1,
      character: 1,
    });
    expect(hover.isError).toBeFalsy();
    expect((hover.structuredContent as { contents: string }).contents).toBe('slow-language hover');
    // $/cancelRequest reached the server.
    expect(await readFile(cancelLog, 'utf8')).toContain('cancel documentSymbol');
    const status = (await family.languageServerStatus()).find((entry) => entry.id === 'slow-language');
    expect(status).toMatchObject({ state: 'running', restarts: 0 });
  });

  it('stops every server on close, idempotently', async () => {
    await family.close();
    await family.close();
    const states = (await family.languageServerStatus()).map((entry) => entry.state);
    expect(states.every((state) => state === 'stopped' || state === 'not_started')).toBe(true);
  });
});
