import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ToolFamily, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_SCREENSHOT_PARAMETERS, createBrowserTools } from '../src/index.js';
import { errorCode } from './helpers.js';

let root: string;
let family: ToolFamily;
let runtime: ToolRuntime;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-browser-parameters-'));
  const workspace = await Workspace.open(root);
  family = createBrowserTools({ workspace });
  runtime = new ToolRuntime({ workspace, tools: family.tools });
});
afterAll(async () => {
  await family.close();
  await rm(root, { recursive: true, force: true });
});

describe('tool definitions', () => {
  it('declares the screenshot default the model relies on (full_page true, SPEC 4.4)', () => {
    const declared = (schema: unknown) =>
      (schema as { properties: { full_page: { default?: unknown } } }).properties.full_page.default;
    expect(declared(BROWSER_SCREENSHOT_PARAMETERS)).toBe(true);
    const screenshot = family.tools.find((tool) => tool.name === 'browser_screenshot');
    expect(declared(screenshot?.parameters)).toBe(true);
  });

  it('lists the ten tools in SPEC 4.4 order with its effects, execution and origin', () => {
    const table = family.tools.map((tool) => [
      tool.name,
      tool.effects.join(','),
      tool.execution ?? '',
      tool.origin,
      tool.network,
    ]);
    expect(table).toEqual([
      ['browser_open', 'network_read,process', 'sequential', 'browser', 'none'],
      ['browser_navigate', 'network_read,process', 'sequential', 'browser', 'none'],
      ['browser_snapshot', 'read', '', 'browser', 'none'],
      ['browser_interact', 'read,external_mutation', 'sequential', 'browser', 'none'],
      ['browser_wait', 'read', 'sequential', 'browser', 'none'],
      ['browser_resize', 'read,external_mutation', 'sequential', 'browser', 'none'],
      ['browser_evaluate', 'read,external_mutation', 'sequential', 'browser', 'none'],
      ['browser_screenshot', 'read', 'sequential', 'browser', 'none'],
      ['browser_errors', 'read', '', 'browser', 'none'],
      ['browser_close', 'read', 'sequential', 'browser', 'none'],
    ]);
    for (const tool of family.tools) expect(tool.capabilities).toBeUndefined();
  });

  it('forbids additional properties exactly where SPEC 4.4 says so', () => {
    const forbidding = family.tools
      .filter(
        (tool) => (tool.parameters as { additionalProperties?: boolean }).additionalProperties === false,
      )
      .map((tool) => tool.name);
    expect(forbidding).toEqual(['browser_snapshot', 'browser_interact', 'browser_wait', 'browser_resize']);
  });

  it('emits enumerations as plain string enums', () => {
    const open = family.tools[0]!.parameters as { properties: Record<string, unknown> };
    expect(open.properties.wait_until).toMatchObject({
      type: 'string',
      enum: ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'],
    });
  });
});

describe('SPEC 8 bounds and required parameters (checked before any browser starts)', () => {
  const invalid: [string, Record<string, unknown>][] = [
    ['browser_open', {}],
    ['browser_open', { target: 'index.html', wait_until: 'networkidle' }],
    ['browser_navigate', { wait_until: 'load' }],
    ['browser_snapshot', { anything: true }],
    ['browser_interact', {}],
    ['browser_interact', { action: 'tap', selector: '#a' }],
    ['browser_interact', { action: 'click', selector: '#a', click_count: 0 }],
    ['browser_interact', { action: 'click', selector: '#a', click_count: 4 }],
    ['browser_interact', { action: 'click', selector: '#a', click_count: 1.5 }],
    ['browser_interact', { action: 'click', selector: '#a', button: 'side' }],
    ['browser_interact', { action: 'select', selector: '#a', values: [] }],
    ['browser_interact', { action: 'scroll', edge: 'middle' }],
    ['browser_interact', { action: 'click', selector: '#a', unknown: 1 }],
    ['browser_wait', { duration_ms: -1 }],
    ['browser_wait', { duration_ms: 60_001 }],
    ['browser_wait', { timeout_ms: 99 }],
    ['browser_wait', { timeout_ms: 60_001 }],
    ['browser_wait', { selector: '#a', state: 'gone' }],
    ['browser_wait', { extra: 1 }],
    ['browser_resize', { width: 319, height: 600 }],
    ['browser_resize', { width: 3841, height: 600 }],
    ['browser_resize', { width: 800, height: 239 }],
    ['browser_resize', { width: 800, height: 2161 }],
    ['browser_resize', { width: 800 }],
    ['browser_resize', { width: 800, height: 600, extra: true }],
    ['browser_evaluate', {}],
    ['browser_evaluate', { expression: '1', timeout_ms: 99 }],
    ['browser_screenshot', { full_page: 'yes' }],
    ['browser_errors', { clear: 'true' }],
    ['browser_close', { reason: 5 }],
  ];
  it.each(invalid)('%s refuses %j', async (name, args) => {
    expect(errorCode(await runtime.call(name, args))).toBe('INVALID_ARGUMENTS');
  });

  const boundaryValues: [string, Record<string, unknown>][] = [
    ['browser_interact', { action: 'click', selector: '#a', click_count: 1 }],
    ['browser_interact', { action: 'click', selector: '#a', click_count: 3 }],
    ['browser_interact', { action: 'select', selector: '#a', values: ['one'] }],
    ['browser_wait', { duration_ms: 0 }],
    ['browser_wait', { duration_ms: 60_000, timeout_ms: 100 }],
    ['browser_wait', { timeout_ms: 60_000 }],
    ['browser_resize', { width: 320, height: 240 }],
    ['browser_resize', { width: 3840, height: 2160 }],
    ['browser_evaluate', { expression: '1', timeout_ms: 100 }],
    ['browser_evaluate', { expression: '1', timeout_ms: 10_000_000 }],
    ['browser_snapshot', {}],
    ['browser_errors', {}],
  ];
  it.each(boundaryValues)(
    '%s accepts the boundary values %j (and then needs a session)',
    async (name, args) => {
      expect(errorCode(await runtime.call(name, args))).toBe('BROWSER_NOT_OPEN');
    },
  );

  it('browser_close without a session is a no-op, not an error', async () => {
    const result = await runtime.call('browser_close', {});
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ closed: false, origin: 'browser' });
  });
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
