import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 18: ARCHITECTURE.md's package map must match the imports exactly, every edge included,
// and the dependency rules hold by test, not by habit. The map's edge table is the single
// written statement of the graph; this test reads it and checks it against each package's
// manifest (dependencies + peerDependencies) and against the imports in its source.

const root = fileURLToPath(new URL('../', import.meta.url));
const SCOPE = '@assistant-kit/';

interface MapRow {
  name: string;
  group: 'shared' | 'settings' | 'tools' | 'join' | 'example';
  layer: number;
  imports: string[];
}

/** The rows of ARCHITECTURE.md's "Every edge" table: | package | group | layer | imports |. */
function architectureRows(): MapRow[] {
  const text = readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('<!-- dependency-table:start -->');
  const end = text.indexOf('<!-- dependency-table:end -->');
  expect(start, 'ARCHITECTURE.md has the dependency table markers').toBeGreaterThan(-1);
  const rows: MapRow[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 6 || !cells[1]?.startsWith('`')) continue;
    rows.push({
      name: cells[1].replaceAll('`', ''),
      group: cells[2] as MapRow['group'],
      layer: Number(cells[3]),
      imports: cells[4] === '–' ? [] : cells[4]!.split(',').map((name) => name.trim().replaceAll('`', '')),
    });
  }
  return rows;
}

interface Manifest {
  name: string;
  directory: string;
  internal: string[];
}

function manifests(): Manifest[] {
  const found: Manifest[] = [];
  for (const parent of ['packages', 'examples']) {
    for (const entry of readdirSync(path.join(root, parent))) {
      const directory = path.join(parent, entry);
      let json: { name: string; dependencies?: object; peerDependencies?: object };
      try {
        json = JSON.parse(readFileSync(path.join(root, directory, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      const declared = Object.keys({ ...json.dependencies, ...json.peerDependencies });
      found.push({
        // Examples are named `example-<x>` in their manifests; the map calls them examples/<x>.
        name: parent === 'examples' ? `examples/${entry}` : json.name.slice(SCOPE.length),
        directory,
        internal: declared
          .filter((name) => name.startsWith(SCOPE))
          .map((name) => name.slice(SCOPE.length))
          .sort(),
      });
    }
  }
  return found;
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current)) {
      const full = path.join(current, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry)) files.push(full);
    }
  };
  walk(path.join(root, directory, 'src'));
  return files;
}

/** A source file's code without its comments. */
function codeOf(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
}

/** Internal packages a source file imports (static, dynamic, re-exports, require.resolve), comments excluded. */
function importsOf(file: string, self: string): string[] {
  const code = codeOf(file);
  const names = new Set<string>();
  const pattern = /(?:from\s+|import\(\s*|require(?:\.resolve)?\(\s*)['"]@assistant-kit\/([a-z-]+)/g;
  for (const match of code.matchAll(pattern)) {
    if (match[1] !== self) names.add(match[1]!);
  }
  return [...names];
}

describe('the dependency rules of ARCHITECTURE.md', () => {
  const rows = architectureRows();
  const byName = new Map(rows.map((row) => [row.name, row]));
  const found = manifests();

  it('list every package and example exactly once', () => {
    expect(rows.map((row) => row.name).sort()).toEqual(found.map((manifest) => manifest.name).sort());
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
  });

  it('state exactly the internal edges each manifest declares', () => {
    for (const manifest of found) {
      expect([...byName.get(manifest.name)!.imports].sort(), manifest.name).toEqual(manifest.internal);
    }
  });

  it('state exactly the internal packages each source tree imports (every declared edge is used)', () => {
    for (const manifest of found) {
      const self = manifest.name.replace(/^examples\//, 'example-');
      const imported = new Set(sourceFiles(manifest.directory).flatMap((file) => importsOf(file, self)));
      expect([...imported].sort(), manifest.name).toEqual(manifest.internal);
    }
  });

  it('point every edge to a lower layer, keep the groups apart, and so admit no cycle', () => {
    for (const row of rows) {
      for (const target of row.imports) {
        const dependency = byName.get(target);
        expect(dependency, `${row.name} → ${target} is in the map`).toBeDefined();
        expect(dependency!.layer, `${row.name} → ${target} points down`).toBeLessThan(row.layer);
        // Only the join package and the examples may reach across the two groups.
        if (row.group === 'settings' || row.group === 'tools') {
          expect(['shared', row.group], `${row.name} → ${target} stays in its group`).toContain(
            dependency!.group,
          );
        }
        expect(dependency!.group, `${row.name} → ${target}: nothing imports an example`).not.toBe('example');
      }
    }
  });

  it('let no tool family import another family, only tool-core and the kernel', () => {
    for (const row of rows.filter((candidate) => candidate.name.startsWith('tools-'))) {
      expect(row.imports.sort(), row.name).toEqual(['kernel', 'tool-core']);
    }
  });
});

describe('TypeBox', () => {
  // Built, the kernel's `./typebox` and `./typebox-compile` entries are TypeBox bundled into a few
  // files: importing TypeBox's own several hundred modules instead was some 40 % of the MCP
  // server's start (kernel/src/typebox.ts). Type-only imports cost nothing at run time and stay
  // allowed; every other way of loading it (import, re-export, import(), require) is refused.
  const SPECIFIER = `['"]typebox(?:\\/[a-z-]+)?['"]`;
  const ANY_LOAD = new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*|\\brequire\\s*\\(\\s*)${SPECIFIER}`, 'g');
  const TYPE_ONLY = new RegExp(`\\b(?:import|export)\\s+type\\s[^;]*?\\bfrom\\s*${SPECIFIER}`, 'g');
  const allLoads = (code: string) => code.match(ANY_LOAD)?.length ?? 0;
  const typeOnlyLoads = (code: string) => code.match(TYPE_ONLY)?.length ?? 0;

  it('tells value loads from type-only imports', () => {
    for (const code of [
      "import { Type } from 'typebox';",
      "import {\n  Type,\n} from 'typebox';",
      "export { Type } from 'typebox';",
      "const t = await import('typebox/compile');",
      "import 'typebox';",
      "const c = require('typebox/compile');",
    ])
      expect(allLoads(code) - typeOnlyLoads(code), code).toBe(1);
    for (const code of ["import type { TSchema } from 'typebox';", "export type { Static } from 'typebox';"])
      expect(allLoads(code) - typeOnlyLoads(code), code).toBe(0);
  });

  it('is imported by the packages only through the kernel, except in type-only imports', () => {
    const offending: string[] = [];
    for (const manifest of manifests().filter((candidate) => candidate.name !== 'kernel')) {
      for (const file of sourceFiles(manifest.directory)) {
        const code = codeOf(file);
        if (allLoads(code) > typeOnlyLoads(code)) offending.push(path.relative(root, file));
      }
    }
    expect(offending).toEqual([]);
  });
});
