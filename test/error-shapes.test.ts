import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Issue 18: INVALID_ARGUMENTS has one details shape in every family, `problems: [{ path, message }]`
// as the runtime's schema check gives it. tool-core's invalidArguments() is the only way to raise
// it (family factories refuse the code by type); this test keeps anyone from writing the code by
// hand with another shape.

const root = fileURLToPath(new URL('../', import.meta.url));
const ALLOWED = new Set(['packages/tool-core/src/errors.ts']);

function sources(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory)) {
    const full = path.join(directory, entry);
    if (statSync(full).isDirectory()) found.push(...sources(full));
    else if (entry.endsWith('.ts')) found.push(full);
  }
  return found;
}

it('raises INVALID_ARGUMENTS only through invalidArguments()', () => {
  const offenders: string[] = [];
  for (const name of readdirSync(path.join(root, 'packages'))) {
    const source = path.join(root, 'packages', name, 'src');
    try {
      statSync(source);
    } catch {
      continue;
    }
    for (const file of sources(source)) {
      const relative = path.relative(root, file);
      if (ALLOWED.has(relative)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/['"]INVALID_ARGUMENTS['"]/.test(line) && !line.trimStart().startsWith('*')) {
            offenders.push(`${relative}:${index + 1}`);
          }
        });
    }
  }
  expect(offenders).toEqual([]);
});
