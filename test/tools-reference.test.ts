import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { renderToolsReference, TOOLS_REFERENCE_PATH } from '../scripts/tools-reference.js';

// The tool descriptions a model reads are short; docs/tools.md keeps the full reference (issue 14).
it('docs/tools.md is the reference of the current tools (regenerate with pnpm docs:tools)', async () => {
  expect(await readFile(TOOLS_REFERENCE_PATH, 'utf8')).toBe(await renderToolsReference());
}, 60_000);
