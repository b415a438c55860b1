import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { syntaxReferences } from '../src/engine/navigation.js';
import { openMentioningFiles } from '../src/engine/reference-scope.js';
import { createCodeToolsWithContext } from '../src/family.js';

// A search for a name over the whole workspace reads through the document cache (path
// resolution, a hash, a line index per file) only the files whose bytes hold the name: on a
// 27,700-file repository, reading every file that way took about 15 s per references request.

const OTHER_FILES = 120;
let root: string;
let family: ReturnType<typeof createCodeToolsWithContext>;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'mention-scan-')));
  await mkdir(path.join(root, 'src', 'other'), { recursive: true });
  await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify({ include: ['src'] }));
  await writeFile(
    path.join(root, 'src', 'needle.ts'),
    'export function findTheNeedle(): number {\n  return 1;\n}\n',
  );
  await writeFile(
    path.join(root, 'src', 'user.ts'),
    "import { findTheNeedle } from './needle.js';\nexport const found = findTheNeedle();\n",
  );
  // A mention in a comment only: the bytes hold the name, the syntax tree has no use of it.
  await writeFile(path.join(root, 'src', 'comment.ts'), '// findTheNeedle is elsewhere\nexport {};\n');
  for (let index = 0; index < OTHER_FILES; index++)
    await writeFile(
      path.join(root, 'src', 'other', `f${index}.ts`),
      `export const value${index} = ${index};\n`,
    );
  family = createCodeToolsWithContext({ workspace: await Workspace.open(root) });
});

afterAll(async () => {
  await family.family.close();
  await rm(root, { recursive: true, force: true });
});

function readsOf(spy: { mock: { calls: unknown[][] } }): string[] {
  // The files read, each once (opening a file in a server reads it through the cache again).
  return [...new Set(spy.mock.calls.map((call) => String(call[0])))].sort();
}

describe('a search for a name reads only the files whose bytes hold it', () => {
  it('in syntax-tree references', async () => {
    const spy = vi.spyOn(family.context.languages.documents, 'read');
    try {
      const { locations } = await syntaxReferences(family.context, 'findTheNeedle', {
        signal: new AbortController().signal,
      });
      expect(locations.map((location) => `${location.path}:${location.line}`).sort()).toEqual([
        'src/needle.ts:1',
        'src/user.ts:1',
        'src/user.ts:2',
      ]);
      expect(readsOf(spy)).toEqual(['src/comment.ts', 'src/needle.ts', 'src/user.ts']);
    } finally {
      spy.mockRestore();
    }
  });

  it('when opening the files that mention it in the language server', async () => {
    const spy = vi.spyOn(family.context.languages.documents, 'read');
    try {
      const scope = await openMentioningFiles(family.context, 'src/needle.ts', 'findTheNeedle');
      expect(scope.openedFiles.sort()).toEqual(['src/comment.ts', 'src/user.ts']);
      expect(readsOf(spy).filter((relative) => relative !== 'src/needle.ts')).toEqual([
        'src/comment.ts',
        'src/user.ts',
      ]);
    } finally {
      spy.mockRestore();
    }
  }, 60_000);
});
