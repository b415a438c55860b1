import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CODE_INTELLIGENCE_READ_ONLY_OPERATIONS,
  CodeIntelligenceParametersReadOnly,
  type CodeToolFamily,
  createCodeTools,
} from '../src/index.js';
import { copySampleProject } from './helpers/fixture-workspace.js';
import { sandboxedProcessLauncher } from './helpers/process-launcher.js';

vi.setConfig({ testTimeout: 240_000 });

let root: string;
let removeFixture: () => Promise<void>;
let family: CodeToolFamily;
let runtime: ToolRuntime;

beforeAll(async () => {
  ({ root, remove: removeFixture } = await copySampleProject());
  const workspace = await Workspace.open(root, { readOnly: true });
  family = createCodeTools({ workspace, requestTimeoutMs: 180_000 });
  runtime = new ToolRuntime({ workspace, tools: family.tools, processes: sandboxedProcessLauncher() });
});

afterAll(async () => {
  await family?.close();
  await removeFixture?.();
});

describe('configuration R (read-only workspace)', () => {
  it('offers only the six read operations of code_intelligence', () => {
    const tool = family.tools.find((candidate) => candidate.name === 'code_intelligence')!;
    expect(tool.parameters).toBe(CodeIntelligenceParametersReadOnly);
    expect(CODE_INTELLIGENCE_READ_ONLY_OPERATIONS).toEqual([
      'hover',
      'find_implementations',
      'call_hierarchy',
      'preview_rename',
      'list_actions',
      'preview_format',
    ]);
  });

  it('refuses apply operations at validation and previews without writing', async () => {
    const preview = await runtime.call('code_intelligence', {
      operation: 'preview_format',
      path: 'src/messy.ts',
    });
    expect(preview.isError).toBeFalsy();
    const token = (preview.structuredContent as { edit_token: string }).edit_token;
    const applied = await runtime.call('code_intelligence', {
      operation: 'apply_format',
      path: 'src/messy.ts',
      edit_token: token,
    });
    expect(applied.isError).toBe(true);
    expect((applied.structuredContent as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENTS');
    expect(await readFile(path.join(root, 'src/messy.ts'), 'utf8')).toContain('messy( a:number');
  });

  it('runs tests in the read-only sandbox', async () => {
    const run = await runtime.call('run_tests', { path: 'src/strings.js', timeout_seconds: 120 });
    expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
    expect(run.structuredContent).toMatchObject({ status: 'passed', passed: 2, failed: 0 });
  });
});
