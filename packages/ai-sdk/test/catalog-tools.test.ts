import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolCatalog, type ToolCatalog } from '@assistant-kit/tool-catalog';
import { stepCountIs, streamText } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCatalogTools, createTurnModel, toModelOutputOf } from '../src/index.js';
import { type FakeProvider, startFakeProvider } from './support/fake-providers.js';
import { mainConnectionOf } from './support/turns.js';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

let root: string;
const opened: ToolCatalog[] = [];
const fakes: FakeProvider[] = [];

async function catalogOf(permissionMode: 'auto' | 'plan'): Promise<ToolCatalog> {
  const catalog = await createToolCatalog({ configuration: 'U', workspace: root, permissionMode });
  opened.push(catalog);
  return catalog;
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-sdk-tools-'));
  await writeFile(path.join(root, 'dot.png'), PNG);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalog) => catalog.close()));
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  await rm(root, { recursive: true, force: true });
});

describe('createCatalogTools', () => {
  it('offers the catalogue’s tools with their JSON Schemas; plan mode offers only the plan tools', async () => {
    const auto = await catalogOf('auto');
    const tools = await createCatalogTools(auto);
    expect(Object.keys(tools)).toEqual(auto.tools.map((tool) => tool.name));
    expect(Object.keys(tools)).toContain('write_file');
    const schema = await (tools.write_file!.inputSchema as { jsonSchema: unknown }).jsonSchema;
    expect(schema).toEqual(auto.tool('write_file')!.inputSchema);

    const plan = await catalogOf('plan');
    const planTools = await createCatalogTools(plan);
    expect(Object.keys(planTools)).toEqual(plan.tools.map((tool) => tool.name));
    expect(Object.keys(planTools)).not.toContain('write_file');
    expect(Object.keys(planTools)).toContain('read_file');
  });

  it('runs through catalog.call: invalid arguments come back as the catalogue’s error result', async () => {
    const tools = await createCatalogTools(await catalogOf('auto'));
    const output = await tools.read_file!.execute!({ nope: 1 }, { toolCallId: 'c1', messages: [] });
    expect(output).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'INVALID_ARGUMENTS' } },
    });
    expect(toModelOutputOf(output as never, true)).toMatchObject({ type: 'error-text' });
  });

  it('an image result goes to the model as an image where the provider takes one, else as a note', async () => {
    const catalog = await catalogOf('auto');
    const result = await catalog.call('view_image', { reference: 'dot.png' });
    expect(result.isError).toBeFalsy();
    const withImages = toModelOutputOf(result, true);
    expect(withImages).toMatchObject({
      type: 'content',
      value: expect.arrayContaining([
        { type: 'image-data', data: PNG.toString('base64'), mediaType: 'image/png' },
      ]),
    });
    const textOnly = toModelOutputOf(result, false);
    expect(textOnly.type).toBe('text');
    expect((textOnly as { value: string }).value).toMatch(/image\/png image of about \d+ bytes left out/);
  });

  it('Anthropic receives the image of a view_image result inside its tool_result block', async () => {
    const provider = await startFakeProvider('anthropic', [
      { toolCalls: [{ id: 'toolu_1', name: 'view_image', args: { reference: 'dot.png' } }] },
      { text: 'A single dot.' },
    ]);
    fakes.push(provider);
    const catalog = await catalogOf('auto');
    const turnModel = await createTurnModel(
      mainConnectionOf({
        mainProvider: 'anthropic',
        baseUrl: provider.baseUrl,
        apiKey: 'k-123456',
        model: 'claude-sonnet-4-5',
      }),
    );
    const result = streamText({
      model: turnModel.model,
      providerOptions: turnModel.providerOptions,
      tools: await createCatalogTools(catalog, { imagesInResults: turnModel.route.imagesInToolResults }),
      stopWhen: stepCountIs(3),
      prompt: 'What is in dot.png?',
    });
    expect(await result.text).toBe('A single dot.');
    const messages = provider.requests[1]!.body.messages as { role: string; content: unknown }[];
    const toolResult = JSON.stringify(messages.at(-1));
    expect(toolResult).toContain('"tool_result"');
    expect(toolResult).toContain(PNG.toString('base64'));
  });
});
