import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ToolFamily, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserTools } from '../src/index.js';
import { errorCode } from './helpers.js';

let root: string;
let family: ToolFamily;
let runtime: ToolRuntime;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-browser-bounded-'));
  const workspace = await Workspace.open(root);
  family = createBrowserTools({ workspace });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
});
afterAll(async () => {
  await family.close();
  await rm(root, { recursive: true, force: true });
});

describe('bad arguments stay small (issue 12)', () => {
  it('quotes a 1 MB invalid target in a bounded way', async () => {
    const result = await runtime.call('browser_open', { target: `http://[${'x'.repeat(999_992)}` });
    expect(errorCode(result)).toBe('TARGET_INVALID');
    const json = JSON.stringify(result);
    expect(json.length).toBeLessThan(5_000);
    expect(json).toContain('(1000000 characters)');
  });
});
