import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CatalogTool,
  createToolCatalog,
  type JsonSchema,
  type ToolCatalog,
  toAnthropicTools,
  toMcpTools,
  toOpenAITools,
} from '../src/index.js';
import { assertAnthropicTools, assertMcpTools, assertOpenAIChatTools } from './format-rules.js';
import {
  type Configuration,
  SPEC_COUNTS,
  SPEC_PARAMETERS,
  SPEC_ROWS,
  type SpecParameter,
} from './spec-4-4.js';

/**
 * Parameters the catalogue offers beyond SPEC 4.4, each a deliberate, documented extension
 * (SPEC leaves additional properties unconstrained where it does not forbid them). Anything else
 * beyond SPEC fails the parameter table.
 */
const DELIBERATE_EXTENSIONS: Record<string, Record<string, SpecParameter>> = {
  // Per-test selection (issue 13), through each runner's own name filter; docs/decisions/tools-code.md.
  run_tests: { test_name: { type: 'string' } },
  // Waiting for a line of output (issue 14): a dev server's "ready" line ends the wait early.
  wait_command: { until_output: { type: 'string' } },
};

let root: string;
const catalogs = new Map<Configuration, ToolCatalog>();

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'catalog-spec-'));
  await writeFile(path.join(root, 'index.html'), '<h1>hello</h1>\n');
  for (const configuration of ['W', 'U', 'R'] as const) {
    catalogs.set(configuration, await createToolCatalog({ configuration, workspace: root }));
  }
});

afterAll(async () => {
  await Promise.all([...catalogs.values()].map((catalog) => catalog.close()));
  await rm(root, { recursive: true, force: true });
});

function typeOf(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  return undefined;
}

function checkParameter(
  where: string,
  schema: JsonSchema,
  expected: SpecParameter,
  configuration: Configuration,
) {
  expect(typeOf(schema), `${where} type`).toBe(expected.type);
  const expectedEnum = configuration === 'R' && expected.enumInR ? expected.enumInR : expected.enum;
  if (expected.type === 'array') {
    const items = schema.items as JsonSchema;
    expect(typeOf(items), `${where} item type`).toBe(expected.itemType);
    if (expectedEnum) expect(items.enum, `${where} item enum`).toEqual(expectedEnum);
    else expect(items.enum, `${where} item enum`).toBeUndefined();
    if (expected.itemFields) {
      checkObject(
        `${where}[]`,
        items,
        expected.itemFields,
        expected.itemAdditionalPropertiesForbidden ?? false,
        configuration,
      );
    }
  } else if (expectedEnum) {
    expect(schema.enum, `${where} enum`).toEqual(expectedEnum);
  } else {
    expect(schema.enum, `${where} enum`).toBeUndefined();
  }
  for (const bound of ['minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    if (expected[bound] !== undefined) expect(schema[bound], `${where} ${bound}`).toBe(expected[bound]);
  }
  if (expected.default !== undefined && schema.default !== undefined) {
    expect(schema.default, `${where} default`).toEqual(expected.default);
  }
}

function checkObject(
  where: string,
  schema: JsonSchema,
  expected: Record<string, SpecParameter>,
  additionalPropertiesForbidden: boolean,
  configuration: Configuration,
) {
  expect(schema.type, `${where} is an object`).toBe('object');
  const offered = Object.entries(expected).filter(
    ([, parameter]) => !parameter.only || parameter.only.includes(configuration),
  );
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  expect(Object.keys(properties).sort(), `${where} parameter names`).toEqual(
    offered.map(([name]) => name).sort(),
  );
  const required = offered.filter(([, parameter]) => parameter.required).map(([name]) => name);
  expect([...((schema.required as string[] | undefined) ?? [])].sort(), `${where} required`).toEqual(
    required.sort(),
  );
  if (additionalPropertiesForbidden)
    expect(schema.additionalProperties, `${where} additionalProperties`).toBe(false);
  else expect(schema.additionalProperties, `${where} additionalProperties`).toBeUndefined();
  for (const [name, parameter] of offered) {
    checkParameter(`${where}.${name}`, properties[name]!, parameter, configuration);
  }
}

describe.each(['W', 'U', 'R'] as const)('configuration %s against SPEC 4.4', (configuration) => {
  const tools = (): readonly CatalogTool[] => catalogs.get(configuration)!.tools;
  const rows = SPEC_ROWS.filter((row) => row.offeredIn.includes(configuration));

  it(`offers ${SPEC_COUNTS[configuration]} tools in SPEC order`, () => {
    expect(rows).toHaveLength(SPEC_COUNTS[configuration]);
    expect(tools().map((tool) => tool.name)).toEqual(rows.map((row) => row.name));
  });

  it.each(rows.map((row) => [row.name, row] as const))(
    '%s: effects, capabilities, execution, origin, network',
    (name, row) => {
      const tool = tools().find((candidate) => candidate.name === name)!;
      expect(tool.effects).toEqual(row.effects);
      expect(tool.capabilities).toEqual(row.capabilities);
      expect(tool.execution).toBe(row.execution);
      expect(tool.origin).toBe(row.origin);
      expect(tool.network).toBe('none');
      expect(tool.purpose.length).toBeGreaterThan(10);
      expect(tool.purpose).not.toContain('\n');
    },
  );

  it.each(rows.map((row) => [row.name] as const))('%s: parameter table', (name) => {
    const tool = tools().find((candidate) => candidate.name === name)!;
    const table = SPEC_PARAMETERS[name]!;
    const parameters = { ...table.parameters, ...DELIBERATE_EXTENSIONS[name] };
    checkObject(name, tool.inputSchema, parameters, table.additionalPropertiesForbidden, configuration);
  });

  it('exports valid MCP, OpenAI and Anthropic tool definitions', () => {
    const mcp = toMcpTools(tools());
    assertMcpTools(mcp);
    expect(mcp.map((tool) => tool.inputSchema)).toEqual(tools().map((tool) => tool.inputSchema));
    const openai = toOpenAITools(tools());
    assertOpenAIChatTools(openai);
    // Most tools can be strict; report which cannot so a regression is visible.
    const nonStrict = openai.filter((tool) => !tool.function.strict).map((tool) => tool.function.name);
    expect(nonStrict.length).toBeLessThan(tools().length / 2);
    assertAnthropicTools(toAnthropicTools(tools(), { cacheControl: true }));
  });
});

describe('tool facts', () => {
  it('declare hints that agree with the effect classes in every configuration', () => {
    for (const [configuration, catalog] of catalogs) {
      for (const tool of catalog.tools) {
        const where = `${configuration} ${tool.name}`;
        const { annotations } = tool;
        // R's workspace refuses every write, so a declared workspace_write cannot happen there.
        const effects = tool.effects.filter(
          (effect) => configuration !== 'R' || effect !== 'workspace_write',
        );
        const readsOnly = effects.every((effect) => effect === 'read' || effect === 'network_read');
        // A tool that may write, run a process or act outside is never advertised as read-only,
        // and a read-only tool is never destructive.
        if (annotations.readOnlyHint) expect(readsOnly, `${where} readOnlyHint`).toBe(true);
        if (annotations.readOnlyHint) expect(annotations.destructiveHint, `${where} destructive`).toBe(false);
        if (effects.includes('workspace_write')) {
          expect(annotations.readOnlyHint, `${where} writes`).toBe(false);
        }
        if (tool.effects.includes('network_read')) {
          expect(annotations.openWorldHint, `${where} reaches pages`).toBe(true);
        }
      }
    }
  });

  it('offer code_intelligence in R as its read-only variant, annotated so (issue 14)', () => {
    const intelligence = catalogs.get('R')!.tool('code_intelligence')!;
    const operations = (intelligence.inputSchema.properties as Record<string, { enum?: string[] }>).operation;
    expect(operations?.enum?.some((operation) => operation.startsWith('apply_'))).toBe(false);
    expect(intelligence.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const inU = catalogs.get('U')!.tool('code_intelligence')!;
    expect(inU.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('name the undo tool as the one that reverses dispatches, and no other', () => {
    const undoing = catalogs
      .get('U')!
      .tools.filter((tool) => tool.undoesDispatches)
      .map((tool) => tool.name);
    expect(undoing).toEqual(['undo_workspace_dispatches']);
  });
});

describe('effects of one call', () => {
  it('browser_screenshot writes a workspace file only when given a path, and says so', () => {
    const catalog = catalogs.get('U')!;
    expect(catalog.effectsOf('browser_screenshot', {})).toEqual(['read']);
    expect(catalog.effectsOf('browser_screenshot', { path: 'shot.png' })).toEqual([
      'read',
      'workspace_write',
    ]);
    expect(catalog.tool('browser_screenshot')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });
});
