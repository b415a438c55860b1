import { Workspace } from '@assistant-kit/tool-core';
import { describe, expect, it } from 'vitest';
import {
  createFileTools,
  EditFileParameters,
  ListFilesParameters,
  ReadFileParameters,
  ReplaceInFilesParameters,
  SearchFilesParameters,
  ViewImageParameters,
  WriteFileParameters,
} from '../src/index.js';

describe('tool definitions (SPEC 4.4)', () => {
  it('lists the seven tools in SPEC order with their effects, capabilities and execution', async () => {
    const family = createFileTools({ workspace: await Workspace.open('.') });
    const rows = family.tools.map((tool) => ({
      name: tool.name,
      effects: tool.effects,
      capabilities: tool.capabilities,
      execution: tool.execution,
      origin: tool.origin,
      network: tool.network,
    }));
    const write = ['workspace.file', 'workspace.write', 'workspace.file-version'];
    expect(rows).toEqual([
      {
        name: 'write_file',
        effects: ['workspace_write'],
        capabilities: write,
        execution: 'sequential',
        origin: undefined,
        network: 'none',
      },
      {
        name: 'edit_file',
        effects: ['workspace_write'],
        capabilities: write,
        execution: 'sequential',
        origin: undefined,
        network: 'none',
      },
      {
        name: 'replace_in_files',
        effects: ['workspace_write'],
        capabilities: ['workspace.file', 'workspace.write'],
        execution: 'sequential',
        origin: undefined,
        network: 'none',
      },
      {
        name: 'view_image',
        effects: ['read'],
        capabilities: undefined,
        execution: undefined,
        origin: undefined,
        network: 'none',
      },
      {
        name: 'search_files',
        effects: ['read'],
        capabilities: ['workspace.file'],
        execution: undefined,
        origin: undefined,
        network: 'none',
      },
      {
        name: 'read_file',
        effects: ['read'],
        capabilities: ['workspace.file', 'workspace.file-version'],
        execution: undefined,
        origin: undefined,
        network: 'none',
      },
      {
        name: 'list_files',
        effects: ['read'],
        capabilities: ['workspace.file'],
        execution: undefined,
        origin: undefined,
        network: 'none',
      },
    ]);
    // SPEC 4.4's order, as each tool's declared position says it.
    expect(family.tools.map((tool) => tool.name)).toEqual([
      'write_file',
      'edit_file',
      'replace_in_files',
      'view_image',
      'search_files',
      'read_file',
      'list_files',
    ]);
    expect(family.tools.map((tool) => tool.facts.order)).toEqual([1, 2, 3, 4, 15, 27, 28]);
    await family.close();
    await family.close();
  });

  it('has exactly the spec parameters, required flags and types; only search_files forbids extras', () => {
    const shape = (schema: {
      properties: Record<string, { type: string }>;
      required?: string[];
      additionalProperties?: unknown;
    }) => ({
      properties: Object.fromEntries(
        Object.entries(schema.properties).map(([name, value]) => [name, value.type]),
      ),
      required: schema.required ?? [],
      additionalProperties: schema.additionalProperties,
    });
    expect(shape(WriteFileParameters as never)).toEqual({
      properties: { path: 'string', content: 'string' },
      required: ['path', 'content'],
      additionalProperties: undefined,
    });
    expect(shape(EditFileParameters as never)).toEqual({
      properties: { path: 'string', old_text: 'string', new_text: 'string', replace_all: 'boolean' },
      required: ['path', 'old_text', 'new_text'],
      additionalProperties: undefined,
    });
    expect(shape(ReplaceInFilesParameters as never)).toEqual({
      properties: {
        find: 'string',
        replace: 'string',
        glob: 'string',
        regex: 'boolean',
        dry_run: 'boolean',
        max_files: 'integer',
        encoding: 'string',
      },
      required: ['find', 'replace'],
      additionalProperties: undefined,
    });
    expect(shape(ViewImageParameters as never)).toEqual({
      properties: { reference: 'string' },
      required: ['reference'],
      additionalProperties: undefined,
    });
    expect(shape(SearchFilesParameters as never)).toEqual({
      properties: { pattern: 'string', glob: 'string', max_results: 'integer', context_lines: 'integer' },
      required: [],
      additionalProperties: false,
    });
    expect(shape(ReadFileParameters as never)).toEqual({
      properties: { path: 'string', offset_line: 'integer', max_lines: 'integer', encoding: 'string' },
      required: ['path'],
      additionalProperties: undefined,
    });
    expect(shape(ListFilesParameters as never)).toEqual({
      properties: { path: 'string' },
      required: [],
      additionalProperties: undefined,
    });
  });
});
