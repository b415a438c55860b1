import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

// Undo data-loss bugs found in review (2026-11-27), through the catalogue as hosts use it.

let root: string;
const opened: ToolCatalog[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-undo-review-'));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalog) => catalog.close()));
  await rm(root, { recursive: true, force: true });
});

/** A U catalogue whose run_command needs no approval. */
async function openCatalogThatRunsCommands(): Promise<ToolCatalog> {
  const catalog = await createToolCatalog({
    configuration: 'U',
    workspace: root,
    permissionMode: 'full-access',
    omitFamilies: ['browser', 'code'],
  });
  opened.push(catalog);
  return catalog;
}

describe('undo in U', () => {
  it('keeps a folder the user made where a file was, when a dispatch wrote into it', async () => {
    await writeFile(path.join(root, 'notes'), 'old notes file\n');
    const catalog = await createToolCatalog({
      configuration: 'U',
      workspace: root,
      omitFamilies: ['browser', 'code'],
    });
    opened.push(catalog);
    await catalog.dispatch('warm-up', (tools) =>
      tools.call('write_file', { path: 'warm.txt', content: 'w\n' }),
    );
    // The user, between dispatches.
    await rm(path.join(root, 'notes'));
    await mkdir(path.join(root, 'notes'));
    await writeFile(path.join(root, 'notes/mine.md'), 'my notes\n');
    await catalog.dispatch('agent', (tools) =>
      tools.call('write_file', { path: 'notes/todo.md', content: 'todo\n' }),
    );
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect(await readdir(path.join(root, 'notes')).catch(() => [])).toEqual(['mine.md']);
  });

  it('leaves the files an ignore rule hid when it undoes a command that removed the rule', async () => {
    await writeFile(path.join(root, '.gitignore'), '.env\nbuild/\n');
    await writeFile(path.join(root, '.env'), 'SECRET=1\n');
    await mkdir(path.join(root, 'build'));
    await writeFile(path.join(root, 'build/out.js'), 'built\n');
    const catalog = await openCatalogThatRunsCommands();
    const ran = await catalog.dispatch('command', (tools) =>
      tools.call('run_command', { command: "printf 'other\\n' > .gitignore" }),
    );
    expect(ran.isError).toBeUndefined();
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('other\n');
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('.env\nbuild/\n');
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(await readFile(path.join(root, 'build/out.js'), 'utf8')).toBe('built\n');
  });
  it('leaves a hidden file the agent rewrote before a command removed the rule (issue 19)', async () => {
    // Found by tools-undo's unrecorded-dispatches property test: app.log was listed "added" and
    // the undo deleted it, though it was there before the dispatch.
    await writeFile(path.join(root, '.gitignore'), '*.log\n');
    await writeFile(path.join(root, 'app.log'), 'before\n');
    const catalog = await openCatalogThatRunsCommands();
    const done = await catalog.dispatch('rewrite the log, drop the rule', async (tools) => {
      // Clearly after the dispatch's begin, so no clock tick can make the write look older.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await tools.call('read_file', { path: 'app.log' });
      const written = await tools.call('write_file', { path: 'app.log', content: 'after\n' });
      return [written, await tools.call('run_command', { command: 'rm .gitignore' })];
    });
    expect(done.map((result) => result.isError)).toEqual([undefined, undefined]);
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect((undo.content[0] as { text: string }).text).not.toContain('app.log');
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('*.log\n');
    expect(await readFile(path.join(root, 'app.log'), 'utf8')).toBe('after\n');
  });

  it('leaves an ignored file a command edited with sed -i before it unhid it (issue 19)', async () => {
    // sed -i writes a new file and renames it into place: nothing on it says a file stood there
    // before the dispatch, and the undo deleted the whole .env over a one-line edit.
    await writeFile(path.join(root, '.gitignore'), '.env\n');
    await writeFile(path.join(root, '.env'), 'KEY=old\nOTHER=kept\n');
    const catalog = await openCatalogThatRunsCommands();
    const ran = await catalog.dispatch('edit the env, track it', (tools) =>
      tools.call('run_command', {
        command: "sed -i 's/KEY=old/KEY=new/' .env && printf 'x\\n' > .gitignore",
      }),
    );
    expect(ran.isError).toBeUndefined();
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('KEY=new\nOTHER=kept\n');
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toBe('.env\n');
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('KEY=new\nOTHER=kept\n');
  });

  it('leaves the report a command unhid by removing its self-ignoring .gitignore (issue 19)', async () => {
    // coverage.py writes `htmlcov/.gitignore` holding `*`: a rule file that hides itself, which
    // the checkpoints never record. The end saw no rule change, listed the report as added, and
    // the undo deleted a report the command never touched.
    await mkdir(path.join(root, 'htmlcov'));
    await writeFile(path.join(root, 'htmlcov/.gitignore'), '*\n');
    await writeFile(path.join(root, 'htmlcov/index.html'), '<p>92%</p>\n');
    const catalog = await openCatalogThatRunsCommands();
    const ran = await catalog.dispatch('publish the report', (tools) =>
      tools.call('run_command', { command: 'rm htmlcov/.gitignore && printf 1 > VERSION' }),
    );
    expect(ran.isError).toBeUndefined();
    const undo = await catalog.call('undo_workspace_dispatches', { count: 1 });
    expect(undo.isError).toBeUndefined();
    expect((undo.content[0] as { text: string }).text).not.toContain('index.html');
    expect(await readFile(path.join(root, 'htmlcov/index.html'), 'utf8')).toBe('<p>92%</p>\n');
    await expect(readFile(path.join(root, 'VERSION'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
