import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEffectPolicy,
  defineTool,
  StringEnum,
  ToolError,
  ToolRuntime,
  textResult,
  truncateText,
  Workspace,
} from '../src/index.js';

let root: string;
let workspace: Workspace;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tool-runtime-'));
  workspace = await Workspace.open(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const log: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const echo = defineTool({
  name: 'echo',
  purpose: 'Returns its text.',
  parameters: Type.Object(
    {
      text: Type.String(),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      mode: Type.Optional(StringEnum(['a', 'b'])),
    },
    { additionalProperties: false },
  ),
  effects: ['read'],
  network: 'none',
  handler: async ({ text }) => textResult(text, { text }),
});

function slowTool(name: string, execution?: 'sequential') {
  return defineTool({
    name,
    purpose: 'Waits, recording when it starts and ends.',
    parameters: Type.Object({ id: Type.String() }),
    effects: ['workspace_write'],
    execution,
    network: 'none',
    handler: async ({ id }) => {
      log.push(`start ${id}`);
      await sleep(20);
      log.push(`end ${id}`);
      return textResult(id);
    },
  });
}

const failing = defineTool({
  name: 'failing',
  purpose: 'Fails.',
  parameters: Type.Object({ kind: StringEnum(['tool', 'crash']) }),
  effects: ['read'],
  origin: 'browser',
  network: 'none',
  handler: async ({ kind }) => {
    if (kind === 'tool') throw new ToolError<'SOMETHING_SPECIFIC'>('SOMETHING_SPECIFIC', 'A clear reason.');
    throw new Error('boom');
  },
});

const host = defineTool({
  name: 'host',
  purpose: 'Needs host execution when asked.',
  parameters: Type.Object({ onHost: Type.Boolean() }),
  effects: ['process'],
  network: 'none',
  requiresHostExecution: ({ onHost }) => onHost,
  handler: async () => textResult('ran'),
});

describe('ToolRuntime', () => {
  it('runs a valid call and returns a CallToolResult', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo] });
    const result = await runtime.call('echo', { text: 'hi' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } });
  });

  it('lists every argument problem with its path', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo] });
    const result = await runtime.call('echo', { count: 9, mode: 'c', extra: true });
    expect(result.isError).toBe(true);
    const error = result.structuredContent?.error as {
      code: string;
      details: { problems: { path: string; message: string }[] };
    };
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.details.problems).toEqual(
      expect.arrayContaining([
        { path: '/text', message: 'is required' },
        { path: '/count', message: 'must be at most 3' },
        { path: '/mode', message: 'must be one of: "a", "b"' },
        { path: '/extra', message: 'is not an allowed parameter; allowed: text, count, mode' },
      ]),
    );
    expect((await runtime.call('echo', null)).structuredContent?.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
    expect((await runtime.call('echo', [1])).structuredContent?.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
  });

  it('keeps INVALID_ARGUMENTS small whatever the arguments hold', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo] });
    const huge = 'k'.repeat(1_000_000);
    const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`extra${index}`, 1]));
    for (const args of [
      { text: 'a', [huge]: 1 },
      { text: 'a', ...manyKeys },
      { text: 1, [huge]: huge },
    ]) {
      const result = await runtime.call('echo', args);
      expect(result.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
      expect(JSON.stringify(result).length).toBeLessThan(10_000);
    }
    const quoted = await runtime.call('echo', { text: 'a', [huge]: 1 });
    expect(JSON.stringify(quoted)).toContain('(1000001 characters)');
  });

  it('answers unknown tools, tool errors and crashes with codes', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo, failing] });
    expect((await runtime.call('nope', {})).structuredContent?.error).toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    const toolError = await runtime.call('failing', { kind: 'tool' });
    expect(toolError).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'SOMETHING_SPECIFIC' } },
    });
    expect(toolError.content[0]).toEqual({ type: 'text', text: 'Error SOMETHING_SPECIFIC: A clear reason.' });
    const crash = await runtime.call('failing', { kind: 'crash' });
    expect(crash.structuredContent).toMatchObject({ error: { code: 'INTERNAL_ERROR' }, origin: 'browser' });
  });

  it('serialises sequential tools per workspace and lets others overlap', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [slowTool('seq', 'sequential'), slowTool('free')] });
    log.length = 0;
    await Promise.all([runtime.call('seq', { id: 's1' }), runtime.call('seq', { id: 's2' })]);
    expect(log).toEqual(['start s1', 'end s1', 'start s2', 'end s2']);
    log.length = 0;
    await Promise.all([runtime.call('free', { id: 'f1' }), runtime.call('free', { id: 'f2' })]);
    expect(log.slice(0, 2)).toEqual(['start f1', 'start f2']);
  });

  it('shares the sequential queue between runtimes of one workspace', async () => {
    const first = new ToolRuntime({ workspace, tools: [slowTool('seq', 'sequential')] });
    const second = new ToolRuntime({ workspace, tools: [slowTool('seq', 'sequential')] });
    log.length = 0;
    await Promise.all([first.call('seq', { id: 'a' }), second.call('seq', { id: 'b' })]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('authorises effects and host execution separately', async () => {
    const approvals: string[] = [];
    const policy = createEffectPolicy({
      effects: { read: 'allow', process: 'ask' },
      hostExecution: 'deny',
      approve: (request) => {
        approvals.push(request.toolName);
        return true;
      },
    });
    const runtime = new ToolRuntime({ workspace, tools: [echo, host, slowTool('writer')], policy });
    expect((await runtime.call('echo', { text: 'x' })).isError).toBeUndefined();
    expect((await runtime.call('host', { onHost: false })).isError).toBeUndefined();
    expect(approvals).toEqual(['host']);
    expect((await runtime.call('host', { onHost: true })).structuredContent?.error).toMatchObject({
      code: 'HOST_EXECUTION_DENIED',
    });
    expect((await runtime.call('writer', { id: 'w' })).structuredContent?.error).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('authorises the effects of the call when they depend on its arguments', async () => {
    const saver = defineTool({
      name: 'saver',
      purpose: 'Shows a thing, and saves it when given a path.',
      parameters: Type.Object({ path: Type.Optional(Type.String()) }),
      effects: ['read'],
      effectsOf: (args) => (args.path === undefined ? ['read'] : ['read', 'workspace_write']),
      network: 'none',
      handler: async () => textResult('ok'),
    });
    const asked: string[][] = [];
    const runtime = new ToolRuntime({
      workspace,
      tools: [saver],
      policy: createEffectPolicy({
        effects: { read: 'allow', workspace_write: 'ask' },
        approve: (request) => {
          asked.push([...request.effects]);
          return false;
        },
      }),
    });
    expect((await runtime.call('saver', {})).isError).toBeUndefined();
    expect((await runtime.call('saver', { path: 'shot.png' })).structuredContent?.error).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(asked).toEqual([['read', 'workspace_write']]);
  });

  it('refuses asked effects when the approver declines or is missing', async () => {
    const declined = new ToolRuntime({
      workspace,
      tools: [host],
      policy: createEffectPolicy({ effects: { process: 'ask' }, approve: () => false }),
    });
    expect((await declined.call('host', { onHost: false })).structuredContent?.error).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    const noApprover = new ToolRuntime({
      workspace,
      tools: [host],
      policy: createEffectPolicy({ effects: { process: 'ask' } }),
    });
    expect((await noApprover.call('host', { onHost: false })).isError).toBe(true);
  });

  it('reports cancellation before start', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo] });
    const controller = new AbortController();
    controller.abort();
    const result = await runtime.call('echo', { text: 'x' }, { signal: controller.signal });
    expect(result.structuredContent?.error).toMatchObject({ code: 'CANCELLED' });
  });

  it('caps oversized text output and says so', async () => {
    const runtime = new ToolRuntime({ workspace, tools: [echo], outputCharacterCap: 10 });
    const result = await runtime.call('echo', { text: 'x'.repeat(50) });
    expect(result.content[0]).toMatchObject({ type: 'text' });
    // A cap this small keeps half for the text and half for saying where the full output is.
    expect((result.content[0] as { text: string }).text).toMatch(
      /^x{5}\n\[truncated: 45 more characters after this point were omitted\. The full output \(1 line\) is kept in \.assistant-kit\/output\/\d+-echo-[\da-f]{8}\.txt/,
    );
  });
});

describe('ToolRuntime validator compilation', () => {
  it('compiles a schema on the first call of its tool, once', async () => {
    let schemaReads = 0;
    const schema = Type.Object({ text: Type.String() }, { additionalProperties: false });
    const counted = defineTool({
      name: 'counted',
      purpose: 'Counts how often its schema is read.',
      get parameters() {
        schemaReads += 1;
        return schema;
      },
      effects: ['read'],
      network: 'none',
      handler: async ({ text }) => textResult(text),
    });
    const runtime = new ToolRuntime({ workspace, tools: [counted] });
    expect(schemaReads).toBe(0);
    expect((await runtime.call('counted', { text: 'a' })).isError).toBeUndefined();
    const readsAfterFirstCall = schemaReads;
    expect(readsAfterFirstCall).toBeGreaterThan(0);
    const refused = await runtime.call('counted', { text: 1 });
    expect(refused.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(runtime.validate('counted', {})).toEqual([{ path: '/text', message: 'is required' }]);
    expect(schemaReads).toBe(readsAfterFirstCall);
  });
});

describe('truncateText', () => {
  it('keeps head and tail when asked', () => {
    const result = truncateText('abcdefghij', 4, 'head-and-tail');
    expect(result).toMatchObject({ truncated: true, omittedCharacters: 6 });
    expect(result.text).toBe('ab\n[truncated: 6 characters omitted from the middle]\nij');
  });
});

describe('ToolRuntime.prepareCalls', () => {
  /** A tool whose schema counts how often anything reads it (compiling a check reads it all). */
  function countingTool(name: string) {
    const reads = { count: 0 };
    const schema = Type.Object({ text: Type.String() }, { additionalProperties: false });
    const counted = new Proxy(schema, {
      get(target, key, receiver) {
        reads.count++;
        return Reflect.get(target, key, receiver);
      },
    });
    const tool = defineTool({
      name,
      purpose: 'Returns its text.',
      parameters: counted,
      effects: ['read'],
      network: 'none',
      handler: async ({ text }) => textResult(text),
    });
    return { tool, reads };
  }

  it("compiles every tool's argument check at once, and only once, so no call pays for it", async () => {
    const first = countingTool('first');
    const second = countingTool('second');
    const runtime = new ToolRuntime({ workspace, tools: [first.tool, second.tool] });
    const [firstBefore, secondBefore] = [first.reads.count, second.reads.count];
    runtime.prepareCalls();
    expect(first.reads.count).toBeGreaterThan(firstBefore);
    expect(second.reads.count).toBeGreaterThan(secondBefore);
    const [firstPrepared, secondPrepared] = [first.reads.count, second.reads.count];
    runtime.prepareCalls();
    expect((await runtime.call('second', { text: 'hi' })).isError).toBeFalsy();
    expect([first.reads.count, second.reads.count]).toEqual([firstPrepared, secondPrepared]);
    // The checks prepared are the ones calls use.
    expect((await runtime.call('first', { text: 1 })).isError).toBe(true);
  });
});
