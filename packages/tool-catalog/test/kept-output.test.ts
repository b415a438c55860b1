import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolCatalog, resultErrorOf, type ToolCatalog } from '../src/index.js';

// Issue 14: when a tool cuts its output, the full output is kept in the hidden app folder and the
// result says where and how to page through it with read_file.

let root: string;
let catalog: ToolCatalog;

const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((part) => part.text ?? '').join('\n');

function keptPathIn(text: string): string {
  const match = /kept in (\.assistant-kit\/output\/[\w.-]+\.txt)/.exec(text);
  if (match === null) throw new Error(`no kept output named in:\n${text.slice(-600)}`);
  return match[1]!;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-kept-'));
  await mkdir(path.join(root, 'many'));
  for (let index = 0; index < 400; index += 1) {
    await writeFile(path.join(root, 'many', `file-${String(index).padStart(3, '0')}.txt`), `${index}\n`);
  }
  await writeFile(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'kept-output', scripts: { test: 'node print-lines.cjs' } }),
  );
  await writeFile(
    path.join(root, 'print-lines.cjs'),
    "for (let i = 1; i <= 50000; i += 1) console.log('test line ' + i);\n",
  );
  catalog = await createToolCatalog({
    configuration: 'W',
    workspace: root,
    families: { files: { maxOutputCharacters: 2_000 } },
  });
});

afterAll(async () => {
  await catalog?.close();
  await rm(root, { recursive: true, force: true });
});

describe('output cut to fit a context window', () => {
  it('run_command keeps the whole stdout, and read_file pages through the part that was cut', async () => {
    const result = await catalog.call('run_command', { command: 'seq 1 120000' });
    const text = textOf(result);
    expect(result.isError, text).toBeFalsy();
    expect(text).toContain('Output was cut');
    // The middle of the output is not in the result…
    expect(text).not.toMatch(/^60000$/m);
    const kept = keptPathIn(text);
    expect(text).toContain('read it with read_file');
    // …but read_file gives it back, line for line.
    const page = await catalog.call('read_file', { path: kept, offset_line: 60_000, max_lines: 3 });
    expect(textOf(page)).toMatch(/60000\s*\n.*60001\s*\n.*60002/);
    const whole = await readFile(path.join(root, kept), 'utf8');
    expect(whole.split('\n').filter((line) => line !== '')).toHaveLength(120_000);
    expect(result.structuredContent?.kept_output).toMatchObject({
      stdout: { path: kept, lines: 120_000, complete: true },
    });
  });

  it('wait_command keeps the full output of a wait on a background command', async () => {
    const started = await catalog.call('run_command', {
      command: 'for i in $(seq 1 30); do seq $(( (i-1)*4000 + 1 )) $(( i*4000 )); sleep 0.02; done',
      background: true,
    });
    const handle = (started.structuredContent as { handle: string }).handle;
    const waited = await catalog.call('wait_command', { handle, timeout_seconds: 60 });
    const text = textOf(waited);
    expect(text).toContain('characters were cut from the middle');
    const kept = keptPathIn(text);
    const lines = (await readFile(path.join(root, kept), 'utf8')).split('\n').filter((line) => line !== '');
    // The note's line count is the kept file's, whatever the wait could read.
    expect(text).toContain(`(${lines.length} lines)`);
    // Between two reads a background command's unread output is bounded (50 kB a stream), so on a
    // loaded machine one read can find more than that and the middle is dropped before this wait
    // sees it. Then, and only then, the note must say the kept output is partial, and the file
    // must say where bytes were dropped; what it holds is still in order, first and last intact.
    const partial = text.includes('bytes dropped before a read are not in it');
    const numbers = lines.filter((line) => /^\d+$/.test(line)).map(Number);
    expect(numbers[0]).toBe(1);
    expect(numbers.at(-1)).toBe(120_000);
    expect(numbers.every((number, index) => index === 0 || number > numbers[index - 1]!)).toBe(true);
    if (partial) {
      expect(numbers.length).toBeLessThan(120_000);
      expect(lines.some((line) => /bytes of stdout omitted from the middle/.test(line))).toBe(true);
    } else {
      expect(lines).toHaveLength(120_000);
      expect(lines[59_999]).toBe('60000');
    }
  });

  it('run_tests keeps the whole output of a run whose output it cut', async () => {
    const result = await catalog.call('run_tests', { command_id: 'npm:test' });
    const text = textOf(result);
    const kept = keptPathIn(text);
    const whole = await readFile(path.join(root, kept), 'utf8');
    expect(whole).toContain('test line 25000\n');
    expect(whole).toContain('test line 50000');
  });

  it("keeps what a file tool's cap cut (list_files), with the line where the cut began", async () => {
    const result = await catalog.call('list_files', { path: 'many' });
    const text = textOf(result);
    expect(text).toContain('[truncated:');
    const kept = keptPathIn(text);
    expect(text).toMatch(/The cut begins at line \d+/);
    const whole = await readFile(path.join(root, kept), 'utf8');
    expect(whole).toContain('file-399.txt');
    expect(whole).toContain('file-000.txt');
  });

  it('keeps the kept outputs out of reach of every write tool and out of the deliverable', async () => {
    const listed = await readdir(path.join(root, '.assistant-kit', 'output'));
    const [first] = listed;
    const refused = await catalog.call('write_file', {
      path: `.assistant-kit/output/${first}`,
      content: 'forged',
    });
    expect(resultErrorOf(refused)?.code).toBe('PATH_PROTECTED');
    expect(await readFile(path.join(root, '.assistant-kit', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('says so when nothing was cut: short output keeps nothing', async () => {
    const before = await readdir(path.join(root, '.assistant-kit', 'output'));
    const result = await catalog.call('run_command', { command: 'echo short' });
    expect(textOf(result)).not.toContain('Output was cut');
    expect(await readdir(path.join(root, '.assistant-kit', 'output'))).toEqual(before);
  });
});
