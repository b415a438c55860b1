import {
  defineTool,
  StringEnum,
  type ToolAnnotations,
  type ToolFacts,
  textResult,
} from '@assistant-kit/tool-core';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import {
  type CatalogTool,
  describeTool,
  fromOpenAIArguments,
  removeStrictNulls,
  TOOL_META_KEY,
  toAnthropicTools,
  toMcpTools,
  toOpenAIResponsesTools,
  toOpenAITools,
  toStrictSchema,
} from '../src/index.js';
import {
  assertAnthropicTools,
  assertMcpTools,
  assertOpenAIChatTools,
  assertOpenAIStrictSchema,
} from './format-rules.js';

const handler = async () => textResult('ok');

/** Facts of a test tool: offered everywhere, hidden in plan mode, with the given hints. */
function factsWith(order: number, annotations: ToolAnnotations): ToolFacts {
  return { offeredIn: ['W', 'U', 'R'], order, planMode: 'hidden', annotations };
}

const writeLike = describeTool(
  defineTool({
    name: 'write_thing',
    facts: factsWith(1, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    }),
    purpose: 'Writes a thing.',
    parameters: Type.Object({
      path: Type.String({ description: 'workspace path', maxLength: 4096 }),
      mode: Type.Optional(StringEnum(['fast', 'safe'], { default: 'safe' })),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
      tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, uniqueItems: true })),
      sources: Type.Optional(
        Type.Array(
          Type.Object(
            {
              url: Type.String(),
              title: Type.Optional(Type.String()),
              coverage: StringEnum(['complete', 'partial']),
            },
            { additionalProperties: false },
          ),
          { maxItems: 50 },
        ),
      ),
    }),
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
    network: 'none',
    handler,
  }),
);

const browserLike = describeTool(
  defineTool({
    name: 'browser_thing',
    facts: factsWith(2, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    }),
    purpose: 'Opens a page.',
    parameters: Type.Object({}, { additionalProperties: false }),
    effects: ['network_read', 'process'],
    execution: 'sequential',
    origin: 'browser',
    network: 'none',
    handler,
  }),
);

const readLike = describeTool(
  defineTool({
    name: 'read_thing',
    facts: factsWith(3, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    }),
    purpose: 'Reads a thing.',
    parameters: Type.Object({ path: Type.String() }),
    effects: ['read'],
    network: 'none',
    handler,
  }),
);

// A root-level alternative cannot be expressed in strict mode.
const alternatives: CatalogTool = {
  ...readLike,
  name: 'either_thing',
  inputSchema: {
    type: 'object',
    properties: { command: { type: 'string' }, argv: { type: 'array', items: { type: 'string' } } },
    oneOf: [{ required: ['command'] }, { required: ['argv'] }],
  },
};

const commandLike = describeTool(
  defineTool({
    name: 'command_thing',
    facts: factsWith(4, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    }),
    purpose: 'Runs a command.',
    parameters: Type.Object({ command: Type.String() }),
    effects: ['process'],
    execution: 'sequential',
    network: 'none',
    handler,
  }),
);

const TOOLS = [writeLike, browserLike, readLike, alternatives, commandLike];

describe('MCP tool listings', () => {
  const listing = toMcpTools(TOOLS);

  it('follow the MCP Tool schema of the SDK', () => {
    assertMcpTools(listing);
  });

  it('pass our JSON Schemas through unchanged and carry our metadata under _meta', () => {
    expect(listing[0]?.inputSchema).toEqual(writeLike.inputSchema);
    expect(listing[0]?._meta[TOOL_META_KEY]).toEqual({
      effects: ['workspace_write'],
      capabilities: ['workspace.write'],
      execution: 'sequential',
      network: 'none',
    });
    expect(listing[1]?._meta[TOOL_META_KEY]).toMatchObject({ origin: 'browser' });
    expect(listing[2]?._meta[TOOL_META_KEY]).not.toHaveProperty('execution');
  });

  it('carry the hints each tool declares, titled from its name', () => {
    const annotationsOf = (tool: CatalogTool) =>
      listing.find((entry) => entry.name === tool.name)!.annotations;
    expect(annotationsOf(readLike)).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(annotationsOf(writeLike)).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(annotationsOf(browserLike)).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
    });
    expect(annotationsOf(commandLike)).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(annotationsOf(readLike).title).toBe('Read thing');
  });
});

describe('OpenAI function tools', () => {
  const tools = toOpenAITools(TOOLS);

  it('follow the function-calling format, strict where the schema allows', () => {
    assertOpenAIChatTools(tools);
    expect(tools.map((tool) => [tool.function.name, tool.function.strict])).toEqual([
      ['write_thing', true],
      ['browser_thing', true],
      ['read_thing', true],
      ['either_thing', false],
      ['command_thing', true],
    ]);
    // The non-strict tool keeps its schema unchanged.
    expect(tools[3]?.function.parameters).toEqual(alternatives.inputSchema);
  });

  it('make optionals nullable, move unsupported narrowing keywords into descriptions', () => {
    const parameters = tools[0]!.function.parameters as {
      required: string[];
      properties: Record<string, { items?: unknown } & Record<string, unknown>>;
    };
    expect(parameters.required).toEqual(['path', 'mode', 'count', 'tags', 'sources']);
    expect(parameters.properties.path).toEqual({
      type: 'string',
      description: 'workspace path (at most 4096 characters)',
    });
    expect(parameters.properties.mode).toEqual({
      type: ['string', 'null'],
      enum: ['fast', 'safe', null],
      description: '(default "safe")',
    });
    expect(parameters.properties.count).toEqual({ type: ['integer', 'null'], minimum: 1, maximum: 20 });
    expect(parameters.properties.sources?.items).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string' },
        title: { type: ['string', 'null'] },
        coverage: { type: 'string', enum: ['complete', 'partial'] },
      },
      required: ['url', 'title', 'coverage'],
      additionalProperties: false,
    });
  });

  it('accept every valid call in strict form and map it back to the original arguments', () => {
    const strict = Compile(tools[0]!.function.parameters as never);
    const original = Compile(writeLike.inputSchema as never);
    const model = {
      path: 'a.txt',
      mode: null,
      count: 3,
      tags: null,
      sources: [{ url: 'https://x', title: null, coverage: 'partial' }],
    };
    expect(strict.Check(model)).toBe(true);
    expect(original.Check(model)).toBe(false);
    const back = fromOpenAIArguments(writeLike, JSON.stringify(model));
    expect(back).toEqual({ path: 'a.txt', count: 3, sources: [{ url: 'https://x', coverage: 'partial' }] });
    expect(original.Check(back)).toBe(true);
  });

  it('returns malformed JSON as a string so the runtime reports invalid arguments', () => {
    expect(fromOpenAIArguments(readLike, '{"path": ')).toBe('{"path": ');
    expect(fromOpenAIArguments(readLike, '')).toEqual({});
  });

  it('offers every tool non-strict on request, and the Responses API shape', () => {
    expect(toOpenAITools(TOOLS, { strict: 'never' }).every((tool) => !tool.function.strict)).toBe(true);
    const responses = toOpenAIResponsesTools(TOOLS);
    expect(responses[0]).toMatchObject({ type: 'function', name: 'write_thing', strict: true });
    expect(Object.keys(responses[0]!).sort()).toEqual([
      'description',
      'name',
      'parameters',
      'strict',
      'type',
    ]);
  });

  it('refuses free-form objects and root alternatives in strict mode', () => {
    expect(
      toStrictSchema({
        type: 'object',
        properties: { env: { type: 'object', additionalProperties: { type: 'string' } } },
      }),
    ).toMatchObject({ strict: false });
    expect(toStrictSchema({ type: 'object', anyOf: [{ type: 'object' }] })).toMatchObject({ strict: false });
    expect(toStrictSchema({ type: 'object', properties: { a: { not: { type: 'null' } } } })).toMatchObject({
      strict: false,
    });
    const empty = toStrictSchema({ type: 'object', properties: {} });
    expect(empty).toEqual({
      strict: true,
      schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    });
    if (empty.strict) assertOpenAIStrictSchema(empty.schema);
  });

  it('keeps nulls the original schema accepts', () => {
    const schema = {
      type: 'object',
      properties: { value: { type: ['string', 'null'] }, other: { type: 'string' } },
    };
    expect(removeStrictNulls(schema, { value: null, other: null })).toEqual({ value: null });
  });
});

describe('Anthropic tool definitions', () => {
  it('follow the Messages API tool format', () => {
    const tools = toAnthropicTools(TOOLS, { cacheControl: true });
    assertAnthropicTools(tools);
    expect(tools[0]).toEqual({
      name: 'write_thing',
      description: 'Writes a thing.',
      input_schema: writeLike.inputSchema,
    });
    expect(tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(tools.slice(0, -1).every((tool) => tool.cache_control === undefined)).toBe(true);
  });
});
