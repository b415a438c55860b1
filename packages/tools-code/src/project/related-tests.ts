import path from 'node:path';
import type { CodeContext } from '../engine/code-context.js';
import { splitSymbol } from '../engine/symbol-queries.js';
import { throwIfCancelled } from '../errors.js';
import { resolveImport } from './import-resolution.js';
import {
  type CheckCommand,
  detectProjectProfile,
  frameworkArgvWithFiles,
  type ProjectProfile,
} from './project-profile.js';
import { isTestFile, testStem } from './test-files.js';

export interface RelatedTest {
  path: string;
  /** Why it is related: `is a test`, `imports src/math.ts`, `named like src/math.ts`, `uses add`. */
  reasons: string[];
  score: number;
}

export interface RelatedCheck {
  command_id: string;
  /** The argv that runs only the related tests (relative to cwd). */
  argv: string[];
  cwd: string;
  files: string[];
}

export interface RelatedTestsResult {
  tests: RelatedTest[];
  commands: RelatedCheck[];
  profile: ProjectProfile;
  /** Source files the symbol was found declared in. */
  symbolFiles: string[];
}

const JAVASCRIPT_FRAMEWORKS = ['vitest', 'jest', 'mocha', 'node:test'];

function frameworkFor(testPath: string, profile: ProjectProfile): CheckCommand | undefined {
  const candidates = profile.commands.filter(
    (command) =>
      command.framework !== undefined && (command.cwd === '.' || testPath.startsWith(`${command.cwd}/`)),
  );
  // The deepest folder wins: a package's own runner over the root one.
  candidates.sort((a, b) => b.cwd.length - a.cwd.length);
  const extension = path.posix.extname(testPath);
  const fits = (command: CheckCommand) => {
    if (extension === '.py') return command.framework === 'pytest';
    if (extension === '.go') return command.framework === 'go';
    if (extension === '.rs') return command.framework === 'cargo';
    if (!JAVASCRIPT_FRAMEWORKS.includes(command.framework!)) return false;
    // node --test cannot run TypeScript files on Node 20.
    return command.framework !== 'node:test' || /\.[cm]?jsx?$/.test(testPath);
  };
  // Runner commands take test files as arguments; package scripts (`npm run test`) do not.
  return candidates.find((command) => fits(command) && command.argv[1] !== 'run') ?? candidates.find(fits);
}

/**
 * Finds tests related to source files and/or a symbol: tests that import the files, tests named
 * after them, and tests that use the symbol; plus the check commands that run just those tests.
 */
export async function findRelatedTests(
  context: CodeContext,
  request: { paths: string[]; symbol?: string; signal?: AbortSignal },
): Promise<RelatedTestsResult> {
  const snapshot = await context.syntax.refresh({ signal: request.signal });
  const profile = await detectProjectProfile(context.workspace.root, snapshot.files);
  const fileSet = new Set(snapshot.files.map((file) => file.relative));
  const tests = snapshot.files.map((file) => file.relative).filter(isTestFile);
  const related = new Map<string, RelatedTest>();
  const add = (testPath: string, reason: string, score: number) => {
    const entry = related.get(testPath) ?? { path: testPath, reasons: [], score: 0 };
    if (!entry.reasons.includes(reason)) {
      entry.reasons.push(reason);
      entry.score += score;
    }
    related.set(testPath, entry);
  };
  const sources = new Set(request.paths);
  const symbolFiles: string[] = [];
  if (request.symbol !== undefined) {
    const { name } = splitSymbol(request.symbol);
    for (const [relative, analysis] of snapshot.analyses) {
      throwIfCancelled(request.signal);
      if (analysis.symbols.some((symbol) => symbol.name === name && !isTestFile(relative))) {
        symbolFiles.push(relative);
        sources.add(relative);
      }
      if (isTestFile(relative) && analysis.identifiers.has(name)) add(relative, `uses ${name}`, 3);
    }
  }
  for (const source of sources) {
    if (isTestFile(source)) add(source, 'is a test', 10);
    const stem = testStem(source);
    const sourceDirectory = path.posix.dirname(source);
    for (const test of tests) {
      if (test === source) continue;
      const imports = snapshot.analyses.get(test)?.imports ?? [];
      if (imports.some((specifier) => resolveImport(test, specifier, fileSet) === source))
        add(test, `imports ${source}`, 5);
      if (testStem(test) === stem) add(test, `named like ${source}`, 3);
      if (test.endsWith('_test.go') && path.posix.dirname(test) === sourceDirectory && source.endsWith('.go'))
        add(test, `same Go package as ${source}`, 2);
    }
  }
  const ranked = [...related.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const byCommand = new Map<string, RelatedCheck & { base: CheckCommand }>();
  for (const test of ranked) {
    const command = frameworkFor(test.path, profile);
    if (command === undefined) continue;
    const entry = byCommand.get(command.command_id) ?? {
      command_id: command.command_id,
      argv: [],
      cwd: command.cwd,
      files: [],
      base: command,
    };
    entry.files.push(command.cwd === '.' ? test.path : path.posix.relative(command.cwd, test.path));
    byCommand.set(command.command_id, entry);
  }
  const commands = [...byCommand.values()].map(({ base, ...check }) => ({
    ...check,
    argv: frameworkArgvWithFiles(base.framework ?? '', base.argv, check.files),
  }));
  return { tests: ranked, commands, profile, symbolFiles };
}
