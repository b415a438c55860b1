import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../src/', import.meta.url));

// The only modules that may touch the file system directly: each is service state or a host
// probe the Workspace does not cover, and says why in a comment at its top.
const LOW_LEVEL_MODULES = [
  'diagnostics/diagnostic-ledger.ts',
  'server/directory-entries.ts',
  'session/chromium-discovery.ts',
];

async function sourceFiles(folder = SOURCE): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? sourceFiles(path.join(folder, entry.name)) : [path.join(folder, entry.name)],
    ),
  );
  return nested.flat().filter((file) => file.endsWith('.ts'));
}

describe('module boundaries of tools-browser', () => {
  it('reaches files through the Workspace and processes through context.processes', async () => {
    const direct: string[] = [];
    for (const file of await sourceFiles()) {
      const relative = path.relative(SOURCE, file).split(path.sep).join('/');
      const text = await readFile(file, 'utf8');
      expect(text, relative).not.toMatch(/from '(node:)?child_process'/);
      expect(text, relative).not.toMatch(/@assistant-kit\/tools-commands/);
      if (/from '(node:)?fs(\/promises)?'/.test(text)) {
        direct.push(relative);
        expect(text.startsWith('// node:fs on purpose (allow-listed low-level module)'), relative).toBe(true);
      }
    }
    expect(direct.sort()).toEqual(LOW_LEVEL_MODULES);
  });
});
