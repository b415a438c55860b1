import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defineTool,
  onProcessFootprint,
  type ProcessFootprint,
  RACY_MARGIN_MS,
  scanForProcessFootprint,
  ToolRuntime,
  textResult,
  Workspace,
} from '../src/index.js';
import { backgroundStarter } from './background-starter.js';

// What the tool runtime tells undo checkpoints of where a process call can have written: the
// folders the git guard's scans before and after the call found changed, or that it cannot say.

let root: string;
let workspace: Workspace;
let heard: ProcessFootprint[];
let stopHearing: () => void;

function writingTool(
  name: string,
  write: () => Promise<void>,
  effects: ('process' | 'read')[] = ['process'],
) {
  return defineTool({
    name,
    purpose: 'Writes files, as a process would.',
    parameters: Type.Object({}),
    effects,
    network: 'none',
    handler: async () => {
      await write();
      return textResult('done');
    },
  });
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'footprint-'));
  await mkdir(path.join(root, 'src/deep'), { recursive: true });
  await mkdir(path.join(root, 'docs'));
  workspace = await Workspace.open(root);
  heard = [];
  stopHearing = onProcessFootprint(workspace, (footprint) => heard.push(footprint));
});

afterEach(async () => {
  stopHearing();
  await rm(root, { recursive: true, force: true });
});

describe('the footprint of a process call', () => {
  it('names the folders whose entries the call changed, from the scans before and after it', async () => {
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        writingTool('idle', async () => {}),
        writingTool('create', async () => {
          await writeFile(path.join(root, 'src/deep/new.ts'), 'x');
        }),
      ],
    });
    // The guard's readings vouch for a folder only once its stamp is older than the racy margin.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await runtime.call('idle', {});
    heard.length = 0;
    await runtime.call('create', {});
    expect(heard).toEqual([
      { bounded: true, scan: 'before', foldersRead: [], gitDirectories: [], ruleFiles: [] },
      { bounded: true, scan: 'after', foldersRead: ['src/deep'], gitDirectories: [], ruleFiles: [] },
    ]);
  });

  it('scans for undo checkpoints as they settle, with the same folder memory, and names the rule files', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [writingTool('idle', async () => {})] });
    await writeFile(path.join(root, '.gitignore'), '*.log\n');
    await writeFile(path.join(root, 'src/.gitignore'), 'out/\n');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await runtime.call('idle', {});
    await runtime.call('idle', {});
    // A person's new file between calls: the settle's scan reads its folder again.
    await writeFile(path.join(root, 'docs/note.md'), 'x');
    heard.length = 0;
    await scanForProcessFootprint(workspace, { asBaseline: true });
    await runtime.call('idle', {});
    expect(heard).toEqual([
      {
        bounded: true,
        scan: 'settle',
        foldersRead: ['docs'],
        gitDirectories: [],
        ruleFiles: ['.gitignore', 'src/.gitignore'],
      },
      // The call takes the settle's scan for its baseline (no second walk); its scan after it
      // reads the folder again while its stamp is too fresh to vouch for a reading, finds the
      // entries the settle's scan saw, and names nothing.
      {
        bounded: true,
        scan: 'after',
        foldersRead: [],
        gitDirectories: [],
        ruleFiles: ['.gitignore', 'src/.gitignore'],
      },
    ]);
  });

  it('names a folder whose name is not UTF-8 where a call wrote in it (the guard walks it as bytes)', async () => {
    // Before, the guard could not walk such a folder, and every call's footprint was unbounded
    // (undo then listed the whole tree) while one stood anywhere in the workspace.
    const rawFolder = Buffer.concat([Buffer.from(`${root}/docs/`), Buffer.from([0x72, 0xff])]);
    mkdirSync(rawFolder);
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        writingTool('idle', async () => {}),
        writingTool('create', async () => {
          await writeFile(Buffer.concat([rawFolder, Buffer.from('/new.txt')]), 'x');
        }),
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await runtime.call('idle', {});
    heard.length = 0;
    await runtime.call('create', {});
    expect(heard).toEqual([
      { bounded: true, scan: 'before', foldersRead: [], gitDirectories: [], ruleFiles: [] },
      { bounded: true, scan: 'after', foldersRead: ['docs/r\uDCFF'], gitDirectories: [], ruleFiles: [] },
    ]);
  });

  it("still neutralises what a call plants when its baseline is a settle's scan", async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    const runtime = new ToolRuntime({
      workspace,
      tools: [
        writingTool('plant', async () => {
          execFileSync('git', ['config', 'core.fsmonitor', 'touch /tmp/planted'], { cwd: root });
        }),
      ],
    });
    await scanForProcessFootprint(workspace, { asBaseline: true });
    const result = await runtime.call('plant', {});
    expect(result.structuredContent?.git_guard).toMatchObject({
      neutralised: [{ kind: 'config', path: '.git/config', key: 'core.fsmonitor' }],
    });
  });

  it('a listener that throws neither stops the guard nor keeps the footprint from the others, and hears it was lost', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    const failing: ProcessFootprint[] = [];
    const stopFailing = onProcessFootprint(workspace, (footprint) => {
      failing.push(footprint);
      if (footprint.bounded) throw new Error('a listener that fails');
    });
    try {
      const runtime = new ToolRuntime({
        workspace,
        tools: [
          writingTool('plant', async () => {
            execFileSync('git', ['config', 'core.fsmonitor', 'touch /tmp/planted'], { cwd: root });
          }),
        ],
      });
      const result = await runtime.call('plant', {});
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.git_guard).toMatchObject({
        neutralised: [{ kind: 'config', path: '.git/config', key: 'core.fsmonitor' }],
      });
      expect(heard.map((footprint) => footprint.bounded && footprint.scan)).toEqual(['before', 'after']);
      const lost = { bounded: false, reason: 'a footprint listener failed on the footprint before' };
      expect(failing).toEqual([
        expect.objectContaining({ scan: 'before' }),
        lost,
        expect.objectContaining({ scan: 'after' }),
        lost,
      ]);
    } finally {
      stopFailing();
    }
  });

  it('says nothing for a call without the process effect', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [writingTool('reader', async () => {}, ['read'])] });
    await runtime.call('reader', {});
    expect(heard).toEqual([]);
  });

  it('cannot say where a call wrote without the guard, or while a background process runs', async () => {
    const off = new ToolRuntime({ workspace, gitGuard: false, tools: [writingTool('idle', async () => {})] });
    await off.call('idle', {});
    expect(heard).toEqual([{ bounded: false, reason: 'the git guard is off' }]);
    heard.length = 0;
    const { processes, starter, stop } = backgroundStarter();
    const runtime = new ToolRuntime({
      workspace,
      processes,
      tools: [starter, writingTool('idle', async () => {})],
    });
    await runtime.call('start_server', {});
    // The call's own scans are bounded; the process it leaves running may write anywhere after.
    expect(heard.map((footprint) => (footprint.bounded ? footprint.scan : footprint.reason))).toEqual([
      'before',
      'after',
      'a background process may be writing',
    ]);
    heard.length = 0;
    await runtime.call('idle', {});
    expect(heard[0]).toEqual({ bounded: false, reason: 'a background process may be writing' });
    stop();
  });
});
