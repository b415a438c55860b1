import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolResult } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers.js';

let harness: Harness;

function codeOf(result: ToolResult): string | undefined {
  return (result.structuredContent?.error as { code?: string } | undefined)?.code;
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

beforeEach(async () => {
  harness = await createHarness();
  await harness.write('.git/config', '[core]\n\tbare = false\n');
  await harness.write('.git/HEAD', 'ref: refs/heads/main\n');
  await mkdir(path.join(harness.root, '.git', 'objects'));
  await harness.write('src/config', '[core]\n\tname = app\n');
});

afterEach(async () => {
  await harness.close();
});

describe('protected paths through the file tools', () => {
  it('write_file and edit_file refuse .git and the hidden folder with PATH_PROTECTED, reads stay allowed', async () => {
    const read = await harness.call('read_file', { path: '.git/config' });
    expect(read.isError).toBeUndefined();
    const write = await harness.call('write_file', {
      path: '.git/config',
      content: '[core]\n\tpager = evil\n',
    });
    expect(codeOf(write)).toBe('PATH_PROTECTED');
    expect(textOf(write)).toContain('version-control metadata');
    const edit = await harness.call('edit_file', {
      path: '.git/config',
      old_text: 'bare = false',
      new_text: 'x',
    });
    expect(codeOf(edit)).toBe('PATH_PROTECTED');
    const hook = await harness.call('write_file', {
      path: '.git/hooks/pre-commit',
      content: '#!/bin/sh\nid\n',
    });
    expect(codeOf(hook)).toBe('PATH_PROTECTED');
    const hidden = await harness.call('write_file', { path: '.assistant-kit/notes.txt', content: 'x' });
    expect(codeOf(hidden)).toBe('PATH_PROTECTED');
    expect(textOf(hidden)).toContain("service's own state");
    expect(await readFile(path.join(harness.root, '.git', 'config'), 'utf8')).toBe(
      '[core]\n\tbare = false\n',
    );
  });

  it('replace_in_files skips a git directory the walker cannot tell by name and says so', async () => {
    // A bare repository under an ordinary name: only its content says it is a git directory.
    await harness.write('vendor/store/HEAD', 'ref: refs/heads/main\n');
    await mkdir(path.join(harness.root, 'vendor', 'store', 'objects'));
    await harness.write('vendor/store/config', '[core]\n\tname = app\n');
    const result = await harness.call('replace_in_files', {
      find: 'name = app',
      replace: 'name = other',
      dry_run: false,
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ files_changed: 1 });
    expect(result.structuredContent?.skipped).toEqual([
      expect.objectContaining({ path: 'vendor/store/config', reason: 'protected' }),
    ]);
    expect(textOf(result)).toContain('vendor/store/config: protected');
    expect(await readFile(path.join(harness.root, 'vendor/store/config'), 'utf8')).toContain('name = app');
    expect(await readFile(path.join(harness.root, 'src/config'), 'utf8')).toContain('name = other');
  });
});

describe('errors never echo a huge argument whole', () => {
  const huge = 'x'.repeat(1_000_000);

  it.each([
    ['an unknown encoding', 'read_file', () => ({ path: 'src/config', encoding: huge })],
    ['a malformed glob', 'search_files', () => ({ glob: `\0${huge}` })],
    ['a regex that does not compile', 'search_files', () => ({ pattern: `(${huge}` })],
    ['a huge value of the wrong type', 'read_file', () => ({ path: 'src/config', max_lines: huge })],
    ['a huge path', 'read_file', () => ({ path: `../${huge}` })],
    [
      'a huge replace_in_files glob',
      'replace_in_files',
      () => ({ find: 'a', replace: 'b', glob: `\0${huge}` }),
    ],
  ])('%s', async (_name, tool, args) => {
    const result = await harness.call(tool, args());
    expect(result.isError).toBe(true);
    const size = JSON.stringify(result).length;
    expect(size).toBeLessThan(3_000);
  });

  it('quotes a bounded prefix with the length', async () => {
    const result = await harness.call('read_file', { path: 'src/config', encoding: huge });
    expect(textOf(result)).toContain('… (1000000 characters)');
  });

  it('a huge tool name is bounded too', async () => {
    const result = await harness.call(huge, {});
    expect(JSON.stringify(result).length).toBeLessThan(3_000);
  });

  it('a huge matching search stays bounded in its header', async () => {
    await writeFile(path.join(harness.root, 'big.txt'), 'nothing here\n');
    const result = await harness.call('search_files', { pattern: `zz${'q'.repeat(100_000)}` });
    expect(JSON.stringify(result).length).toBeLessThan(3_000);
  });
});
