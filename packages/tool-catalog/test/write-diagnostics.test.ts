import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolCatalog, type ToolCatalog } from '../src/index.js';

vi.setConfig({ testTimeout: 240_000 });

// biome-ignore lint/suspicious/noExplicitAny: results are inspected field by field.
type Structured = Record<string, any>;

const fixture = fileURLToPath(
  new URL('../../tools-code/test/fixtures/projects/ts-library/', import.meta.url),
);

describe('a write reports what it broke', () => {
  let root: string;
  let catalog: ToolCatalog;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'catalog-write-diagnostics-'));
    await cp(fixture, root, { recursive: true });
    // A generous budget: the test is about what is reported, not how fast (see the benchmarks).
    catalog = await createToolCatalog({
      configuration: 'W',
      workspace: root,
      permissionsEnabled: false,
      families: { code: { writeDiagnosticsBudgetMs: 120_000 } },
    });
  });
  afterAll(async () => {
    await catalog?.close();
    await rm(root, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result: ToolResult = await catalog.call(name, args);
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (result.isError) throw new Error(`${name} failed: ${text}`);
    return { data: (result.structuredContent ?? {}) as Structured, text };
  };

  it('adds the new errors of the edited file to edit_file, and says when there are none', async () => {
    // The TypeScript server runs once code intelligence was used in the session.
    await call('code_diagnostics', { glob: 'source/utils/*' });
    await call('read_file', { path: 'source/utils/is.ts' });
    const broken = await call('edit_file', {
      path: 'source/utils/is.ts',
      old_text: "value !== null && typeof value === 'object';",
      new_text: "value !== null && typeof value === 'object' && value.size > 0;",
    });
    expect(broken.data.diagnostics_after_write).toEqual({
      introduced: [
        {
          path: 'source/utils/is.ts',
          line: 13,
          character: 55,
          severity: 'error',
          message: "Property 'size' does not exist on type 'object'.",
          code: 2339,
        },
      ],
      introduced_total: 1,
      pending: [],
      checked: ['source/utils/is.ts'],
    });
    expect(broken.text).toContain('Diagnostics after the change: 1 new problem in the changed files:');
    await call('read_file', { path: 'source/core/constants.ts' });
    const harmless = await call('edit_file', {
      path: 'source/core/constants.ts',
      old_text: 'export const maxSafeTimeout',
      new_text: '// The largest delay setTimeout accepts.\nexport const maxSafeTimeout',
    });
    expect(harmless.data.diagnostics_after_write).toMatchObject({
      introduced: [],
      checked: ['source/core/constants.ts'],
    });
    expect(harmless.text).toContain(
      'Diagnostics after the change: no new errors or warnings in source/core/constants.ts.',
    );
  });
});
