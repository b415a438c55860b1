import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The import rule of issue 12: a tool family reaches files only through the Workspace
// (confinement, protected paths, ledger, atomic writes) and starts processes only through the
// call context's launcher (the host's sandbox). So no file under packages/tools-*/src may import
// node:fs, node:fs/promises or node:child_process (bare `fs`/`child_process` included, static,
// dynamic or required), except the low-level modules listed here, each with why.

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Workspace-relative file → why it may use the file system or start processes itself. */
const LOW_LEVEL_MODULES: Record<string, string> = {
  // tools-files (owned by this change): read-only walkers and search engines. They read
  // directory entries and file bytes the confined walk found (symlinks never followed, `.git`
  // and the hidden folder skipped); none of them writes, and every write goes through the
  // Workspace. They bypass Workspace.readFile for speed on trees of 100k files.
  'packages/tools-files/src/listing/ripgrep-listing.ts': 'lstat/readdir of entries the listing returns',
  'packages/tools-files/src/listing/path-facts.ts': 'lstat of listed entries for sizes and kinds',
  'packages/tools-files/src/listing/listing-memory.ts':
    'lstat/readdir of the folders a remembered listing holds, to bring it up to date',
  'packages/tools-files/src/listing/stat-pool.ts':
    'lstat worker pool for list_files sizes (source text run in a worker)',
  'packages/tools-files/src/walk/names-not-utf8.ts':
    'lstat of a sub-folder whose type the listing did not give, among names Node repaired with U+FFFD',
  'packages/tools-files/src/search/ripgrep-engine.ts':
    'spawns the ripgrep binary with a fixed argv, no shell (a read-only search engine, not a user command)',
  // tools-commands: the launcher implementation itself. It is the capability the runtime hands
  // to handlers as `context.processes`, so it is where processes are started and supervised.
  'packages/tools-commands/src/process/background-process.ts': 'launcher: background process handles',
  'packages/tools-commands/src/process/bounded-output.ts':
    'launcher: spools a cut stream to a private temporary file, so the full output can be kept',
  'packages/tools-commands/src/process/port-bridge.ts': 'launcher: the Unix-socket port bridge',
  'packages/tools-commands/src/process/process-tree.ts': 'launcher: reads /proc to end a process tree',
  'packages/tools-commands/src/process/shell.ts': 'launcher: finds the shell executable on the host',
  'packages/tools-commands/src/process/supervised-process.ts':
    'launcher: spawns bubblewrap and supervises it',
  'packages/tools-commands/src/sandbox/bubblewrap.ts': 'launcher: probes the bubblewrap binary',
  'packages/tools-commands/src/sandbox/limits.ts': 'launcher: the in-sandbox prelude that sets limits',
  'packages/tools-commands/src/sandbox/mount-plan.ts': 'launcher: checks host paths for the mount plan',
  'packages/tools-commands/src/sandbox/pids-cgroup.ts': 'launcher: the per-command pids cgroup',
  'packages/tools-commands/src/sandbox/toolchains.ts': 'launcher: finds toolchains under HOME to show',
  // tools-undo: the shadow repository is the service's own state under .assistant-kit/undo/, which
  // no tool may read or write; its git never runs configuration the workspace planted.
  'packages/tools-undo/src/storage-files.ts': 'durable writes of the shadow repository and dispatch log',
  'packages/tools-undo/src/git-runner.ts': 'runs git with pinned configuration and a built environment',
  // tools-browser: service state in the hidden folder, a host binary lookup, and names-only folder
  // listings of paths the Workspace resolved (file contents are served through the Workspace).
  'packages/tools-browser/src/diagnostics/diagnostic-ledger.ts': 'browser logs in the hidden folder',
  'packages/tools-browser/src/server/directory-entries.ts': 'names in a folder Workspace.resolve confined',
  'packages/tools-browser/src/session/chromium-discovery.ts':
    'finds the Chromium binary outside the workspace',
  // tools-code: metadata-only checks on the hot path, the confined file index, language-server
  // processes (service processes, not user commands), and the parser's own wasm cache.
  'packages/tools-code/src/engine/file-status.ts': 'stat/realpath of cached documents (metadata only)',
  'packages/tools-code/src/files/confined-fs.ts': 'O_NOFOLLOW reads checked inside the root, capped',
  'packages/tools-code/src/lsp/server-spawn.ts': 'starts language servers (no workspace plugins)',
  'packages/tools-code/src/syntax/analysis-pool.ts': 'tree-sitter worker pool and its wasm cache',
  'packages/tools-code/src/syntax/grammar-modules.ts': "reads the grammar packages' own wasm files",
};

// Third-party process spawners count as child_process: they are the same capability.
const FORBIDDEN = '(?:(?:node:)?(?:fs|fs/promises|child_process)|simple-git|execa|cross-spawn)';
const PATTERNS = [
  // import … from 'fs' / export … from 'fs' (type-only imports grant nothing and are allowed)
  new RegExp(`(?:^|[\\n;])\\s*(?:import|export)\\s+(?!type[\\s{])[^;]*?\\bfrom\\s*['"]${FORBIDDEN}['"]`),
  // import 'fs' (side effect)
  new RegExp(`(?:^|[\\n;])\\s*import\\s*['"]${FORBIDDEN}['"]`),
  // import('fs'), require('fs'), createRequire(...)('child_process'), await import("node:fs")
  new RegExp(`\\(\\s*['"\`]${FORBIDDEN}['"\`]\\s*\\)`),
];

/** The forbidden module references in one source text. */
export function forbiddenImports(source: string): string[] {
  const found: string[] = [];
  for (const pattern of PATTERNS) {
    const global = new RegExp(pattern.source, 'g');
    for (const match of source.matchAll(global)) found.push(match[0].trim());
  }
  return found;
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const absolute = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(absolute));
    else if (/\.(?:[cm]?ts|[cm]?js|tsx)$/.test(entry.name)) files.push(absolute);
  }
  return files;
}

function familySourceFiles(): string[] {
  const packages = path.join(repositoryRoot, 'packages');
  return readdirSync(packages)
    .filter((name) => name.startsWith('tools-'))
    .flatMap((name) => {
      try {
        return sourceFiles(path.join(packages, name, 'src'));
      } catch {
        return [];
      }
    });
}

describe('family boundaries: no node:fs or node:child_process outside the low-level allow-list', () => {
  it('recognises every form of the forbidden imports (the rule can fail)', () => {
    const offenders = [
      "import { readFile } from 'node:fs/promises';",
      "import fs from 'fs';",
      'import * as cp from "node:child_process";',
      "import {\n  spawn,\n  execFile,\n} from 'child_process';",
      "export { readFileSync } from 'node:fs';",
      "import 'node:fs';",
      "const { spawn } = await import('node:child_process');",
      "const fs = require('fs/promises');",
      "const cp = createRequire(import.meta.url)('child_process');",
      'const m = await import(`node:fs`);',
      "import { simpleGit } from 'simple-git';",
    ];
    for (const source of offenders) expect(forbiddenImports(source), source).not.toEqual([]);
    const allowed = [
      "import type { FileHandle } from 'node:fs/promises';",
      "import type { Stats } from 'node:fs';",
      "import path from 'node:path';",
      "import { Worker } from 'node:worker_threads';",
      "import { something } from './fs-helpers.js';",
      "const text = 'we never import from node:fs here';",
    ];
    for (const source of allowed) expect(forbiddenImports(source), source).toEqual([]);
  });

  it('holds for every file of packages/tools-*/src', () => {
    const files = familySourceFiles();
    expect(files.length).toBeGreaterThan(50);
    const violations: string[] = [];
    for (const file of files) {
      const relative = path.relative(repositoryRoot, file).split(path.sep).join('/');
      if (relative in LOW_LEVEL_MODULES) continue;
      const found = forbiddenImports(readFileSync(file, 'utf8'));
      if (found.length > 0) violations.push(`${relative}: ${found.join(' | ')}`);
    }
    expect(
      violations,
      'use context.workspace / context.processes, or add a commented allow-list entry',
    ).toEqual([]);
  });

  it('lists no file that no longer exists', () => {
    const files = new Set(
      familySourceFiles().map((file) => path.relative(repositoryRoot, file).split(path.sep).join('/')),
    );
    const stale = Object.keys(LOW_LEVEL_MODULES).filter((file) => !files.has(file));
    expect(stale).toEqual([]);
  });
});
