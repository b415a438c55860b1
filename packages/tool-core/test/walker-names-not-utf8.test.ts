import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { displayName, encodeNameBytes } from '@assistant-kit/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileWalkGlob, type WalkedNameNotUtf8, walkWorkspace } from '../src/index.js';

// Names as Linux stores them: bytes. `caf\uDCE9` stands for the Latin-1 bytes `caf\xE9` (the
// kernel's lossless decoding); Node would show both it and `caf\uFFFD` as `caf\uFFFD`.
let root: string;

function write(relative: string, text = 'x'): void {
  const file = encodeNameBytes(path.join(root, relative));
  mkdirSync(encodeNameBytes(path.dirname(path.join(root, relative))), { recursive: true });
  writeFileSync(file, text);
}

async function walk(
  options: { enter?: boolean; glob?: string; withSizes?: boolean } = {},
): Promise<{ delivered: string[]; notUtf8: WalkedNameNotUtf8[] }> {
  const delivered: string[] = [];
  const notUtf8: WalkedNameNotUtf8[] = [];
  await walkWorkspace({
    root,
    withSizes: options.withSizes ?? false,
    ...(options.glob === undefined ? {} : { filter: compileWalkGlob(options.glob) }),
    onEntry: (entry) => {
      delivered.push(entry.kind === 'directory' ? `${entry.relative}/` : `${entry.relative}\t${entry.size}`);
    },
    onNameNotUtf8: (entry) => {
      notUtf8.push(entry);
      return options.enter === true ? 'enter' : undefined;
    },
  });
  return { delivered, notUtf8 };
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'walker-names-')));
  write('caf\uDCE9.txt', 'latin-1 name');
  write('caf\uFFFD.txt', 'a real U+FFFD');
  write('plain.txt', 'plain');
  write('d\uDCE9j/inner.txt', 'inside');
  write('d\uDCE9j/sub/deep.txt', 'deeper');
  write('d\uDCE9j/trace.log', 'ignored');
  write('ok/caf\uDCE8.md', 'another byte');
  write('ok/x.log', 'ignored');
  write('.gitignore', '*.log\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('walkWorkspace and names that are not UTF-8', () => {
  it('delivers each UTF-8 file once, under its own name and size, and reports the others', async () => {
    const { delivered, notUtf8 } = await walk({ withSizes: true });
    // Node's decoding would deliver `caf\uFFFD.txt` twice (once with the other file's size),
    // `ok/caf\uFFFD.md` and the folder `d\uFFFDj/`, whose path opens nothing.
    expect(delivered).toEqual(['.gitignore\t6', 'caf\uFFFD.txt\t13', 'ok/', 'plain.txt\t5']);
    expect(notUtf8.map(({ relative, kind }) => `${kind} ${displayName(relative)}`).sort()).toEqual([
      'directory "d\\351j"',
      'file "caf\\351.txt"',
      'file "ok/caf\\350.md"',
    ]);
    const folder = notUtf8.find((entry) => entry.kind === 'directory')!;
    expect(folder.absolute).toBe(`${root}/d\uDCE9j`);
  });

  it('enters such a folder on request and reports what is below it, ignore rules applied', async () => {
    const { delivered, notUtf8 } = await walk({ enter: true });
    expect(delivered).toEqual(['.gitignore\t0', 'caf\uFFFD.txt\t0', 'ok/', 'plain.txt\t0']);
    expect(notUtf8.map(({ relative }) => displayName(relative)).sort()).toEqual([
      '"caf\\351.txt"',
      '"d\\351j"',
      '"d\\351j/inner.txt"',
      '"d\\351j/sub"',
      '"d\\351j/sub/deep.txt"',
      '"ok/caf\\350.md"',
    ]);
  });

  it('applies the filter to them as to any entry', async () => {
    const { delivered, notUtf8 } = await walk({ glob: '*.md', enter: true });
    expect(delivered).toEqual(['ok/']);
    expect(
      notUtf8.filter((entry) => entry.kind === 'file').map(({ relative }) => displayName(relative)),
    ).toEqual(['"ok/caf\\350.md"']);
  });

  it('reads the .gitignore of such a folder by its bytes', async () => {
    write('d\uDCE9j/.gitignore', 'inner.txt\n');
    const { notUtf8 } = await walk({ enter: true });
    const below = notUtf8.map(({ relative }) => displayName(relative));
    expect(below).not.toContain('"d\\351j/inner.txt"');
    expect(below).toContain('"d\\351j/sub/deep.txt"');
  });
});
