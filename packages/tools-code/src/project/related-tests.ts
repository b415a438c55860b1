import path from 'node:path';
import type { CodeContext } from '../engine/code-context.js';
import { splitSymbol } from '../engine/symbol-queries.js';
import { throwIfCancelled } from '../errors.js';
import { languageOfPath } from '../languages.js';
import { ANONYMOUS_EXPORT_NAMES } from '../syntax/symbols.js';
import { projectTestFiles } from './configured-tests.js';
import { ModuleResolver } from './module-resolver.js';
import { type CheckCommand, detectProjectProfile, type ProjectProfile } from './project-profile.js';
import { isInTestPaths } from './runner-options.js';
import { testStem } from './test-files.js';
import { isTestRunner, JAVASCRIPT_RUNNERS, selectionArgv } from './test-runners.js';

export interface RelatedTest {
  path: string;
  /** Why it is related: `is a test`, `imports src/math.ts`, `named like src/math.ts`, `uses add`. */
  reasons: string[];
  score: number;
}

export interface RelatedCheck {
  command_id: string;
  /** The test runner (vitest, ava, pytest…). */
  framework: string;
  /** The runner's argv before the selection is added. */
  base_argv: string[];
  /** The argv that runs only the related tests (relative to cwd). */
  argv: string[];
  cwd: string;
  files: string[];
  /** The check's own environment (CheckCommand.env), when it has one. */
  env?: Record<string, string>;
}

/** A related test no check runs, and why. */
export interface UnrunTest {
  path: string;
  /** `outside the tests pytest runs (tests)`, or `no runner found`. */
  reason: string;
}

export interface RelatedTestsResult {
  tests: RelatedTest[];
  commands: RelatedCheck[];
  /** Related tests none of `commands` runs (outside a runner's configured tests, or no runner). */
  unrun: UnrunTest[];
  profile: ProjectProfile;
  /** Source files the symbol was found declared in. */
  symbolFiles: string[];
}

/** A source's name is distinctive when at most this share of the test files use it. */
const DISTINCTIVE_SHARE = 0.1;

/** Symbols that name no code a test could call (document keys, headings, selectors). */
const NON_CODE_KINDS = new Set(['key', 'item', 'heading', 'selector', 'id']);

/** Import hops followed from a test: direct imports, then through index or re-exporting files. */
const MAX_IMPORT_DEPTH = 3;

/**
 * The check that runs a test file, or why none does: a runner fits the file's language but the
 * project gives it other tests (`testPaths`), or no runner fits.
 */
export function frameworkFor(testPath: string, profile: ProjectProfile): CheckCommand | undefined {
  const found = checkForTest(testPath, profile);
  return 'command' in found ? found.command : undefined;
}

function checkForTest(
  testPath: string,
  profile: ProjectProfile,
): { command: CheckCommand } | { reason: string } {
  const candidates = profile.commands.filter(
    (command) =>
      command.framework !== undefined && (command.cwd === '.' || testPath.startsWith(`${command.cwd}/`)),
  );
  // The deepest folder wins: a package's own runner over the root one.
  candidates.sort((a, b) => b.cwd.length - a.cwd.length);
  const extension = path.posix.extname(testPath);
  const fits = (command: CheckCommand) => {
    if (!isTestRunner(command.framework)) return false;
    if (extension === '.py')
      return (
        command.framework === 'pytest' || command.framework === 'unittest' || command.framework === 'django'
      );
    if (extension === '.go') return command.framework === 'go';
    if (extension === '.rs') return command.framework === 'cargo';
    if (!JAVASCRIPT_RUNNERS.includes(command.framework)) return false;
    // node --test cannot run TypeScript files on Node 20.
    return command.framework !== 'node:test' || /\.[cm]?jsx?$/.test(testPath);
  };
  // Runner commands take test files as arguments; package scripts (`npm run test`) do not.
  // A test outside the files the project's scripts give a runner is not that runner's.
  const runners = candidates.filter((command) => fits(command) && !command.command_id.startsWith('npm:'));
  const command = runners.find(
    (runner) =>
      runner.testPaths === undefined ||
      isInTestPaths(runner.cwd === '.' ? testPath : testPath.slice(runner.cwd.length + 1), runner.testPaths),
  );
  if (command !== undefined) return { command };
  const [configured] = runners;
  return configured === undefined
    ? { reason: 'no runner found' }
    : { reason: `outside the tests ${configured.command_id} runs (${configured.testPaths!.join(' ')})` };
}

/** How many code files that are not tests have each test stem (`models` for every models.py). */
function countSourcesByStem(
  files: readonly string[],
  isTest: (relative: string) => boolean,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    if (languageOfPath(file)?.code !== true || isTest(file)) continue;
    const stem = testStem(file);
    counts.set(stem, (counts.get(stem) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether a test sits beside a source: its folder, test folders left out (`catalog/tests/` for
 * `catalog/`, `tests/foo/` for `src/foo/`), is the source's folder, one of its ends, or the root.
 */
function testBeside(test: string, sourceDirectory: string): boolean {
  const testFolder = path.posix
    .dirname(test)
    .split('/')
    .filter((segment) => !/^(test|tests|__tests__|spec|specs|\.)$/.test(segment))
    .join('/');
  const source = sourceDirectory === '.' ? '' : sourceDirectory;
  return (
    testFolder === '' ||
    testFolder === source ||
    source.endsWith(`/${testFolder}`) ||
    testFolder.endsWith(`/${source}`) ||
    (source !== '' && testFolder.startsWith(`${source}/`))
  );
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
  const profile = await detectProjectProfile(context.workspace, snapshot.files, snapshot.pathsKey);
  const files = snapshot.files.map((file) => file.relative);
  // The conventions, and the tests the runners' configurations name (date-fns' src/*/test.ts).
  const isTest = projectTestFiles(profile.configured_tests);
  const resolver = await ModuleResolver.load(context.workspace, files);
  const tests = files.filter(isTest);
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
      if (analysis.symbols.some((symbol) => symbol.name === name && !isTest(relative))) {
        symbolFiles.push(relative);
        sources.add(relative);
      }
      if (isTest(relative) && analysis.identifiers.has(name)) add(relative, `uses ${name}`, 3);
    }
  }
  const importsOf = new Map<string, string[]>();
  const resolvedImports = (file: string): string[] => {
    let targets = importsOf.get(file);
    if (targets === undefined) {
      targets = [
        ...new Set(
          (snapshot.analyses.get(file)?.imports ?? [])
            .map((specifier) => resolver.resolve(file, specifier))
            .filter((target): target is string => target !== undefined && target !== file),
        ),
      ];
      importsOf.set(file, targets);
    }
    return targets;
  };
  /**
   * A file that only gathers and re-exports other modules (`export { x } from './x.js'`, an
   * `__init__.py` with imports and `__all__`): it declares nothing of its own. An index that also
   * has code (ky's `index.ts` builds the default instance from `Ky`) is an ordinary module.
   */
  const isReExportHub = (file: string): boolean =>
    (snapshot.analyses.get(file)?.symbols ?? []).every(
      (symbol) => symbol.container !== undefined || /^__\w+__$/.test(symbol.name),
    );
  // What each test reaches through its imports, and through which file (breadth first).
  const reachedBy = new Map<string, Map<string, { depth: number; via?: string; throughIndex: boolean }>>();
  const reachOf = (test: string) => {
    let reached = reachedBy.get(test);
    if (reached !== undefined) return reached;
    reached = new Map();
    let frontier = [test];
    for (let depth = 1; depth <= MAX_IMPORT_DEPTH && frontier.length > 0; depth++) {
      const next: string[] = [];
      for (const file of frontier) {
        for (const target of resolvedImports(file)) {
          if (reached.has(target) || target === test) continue;
          const from = reached.get(file);
          reached.set(
            target,
            depth === 1
              ? { depth, throughIndex: false }
              : {
                  depth,
                  via: from?.via ?? file,
                  throughIndex: (from?.throughIndex ?? false) || isReExportHub(file),
                },
          );
          // Only source files lead further: a test's helpers are followed, other tests are not.
          if (!isTest(target)) next.push(target);
        }
      }
      frontier = next;
    }
    reachedBy.set(test, reached);
    return reached;
  };
  const usesNameOf = (test: string, source: string): boolean => {
    const identifiers = snapshot.analyses.get(test)?.identifiers;
    if (identifiers === undefined) return false;
    return (snapshot.analyses.get(source)?.symbols ?? []).some((symbol) => {
      if (symbol.container !== undefined) return false;
      // An anonymous export has no name of its own: importers bind it under the file's
      // (`only: require('./only')`, `const isStream = require('./is-stream')`).
      if (ANONYMOUS_EXPORT_NAMES.has(symbol.name))
        return namesOfFileStem(source).some((name) => identifiers.has(name));
      return identifiers.has(symbol.name);
    });
  };
  /** How many test files use each name (counted once per name asked about). */
  const testsUsing = new Map<string, number>();
  const testsUsingName = (name: string): number => {
    let count = testsUsing.get(name);
    if (count === undefined) {
      count = tests.filter((test) => snapshot.analyses.get(test)?.identifiers.has(name)).length;
      testsUsing.set(name, count);
    }
    return count;
  };
  /**
   * The names of `source` (its members included) that few tests use: Express's tests all reach
   * lib/response.js through the package's index, and `res.sendStatus`'s name singles out the
   * two that call it, where `res` or `status` is in nearly all of them.
   */
  const distinctiveNamesOf = (source: string): string[] => {
    const names = new Set(
      (snapshot.analyses.get(source)?.symbols ?? [])
        .filter(
          (symbol) =>
            symbol.name.length >= 4 &&
            !NON_CODE_KINDS.has(symbol.kind) &&
            // `constructor` names every class's, not this file's; so do Python's dunder methods
            // (httpx's tests "used" URL's `__iter__` by iterating over anything).
            symbol.kind !== 'constructor' &&
            !/^__\w+__$/.test(symbol.name) &&
            // Nor do the names of anonymous exports (`exports`, `default`): importers name them.
            !ANONYMOUS_EXPORT_NAMES.has(symbol.name) &&
            // A module's own variables (`var resolve = path.resolve`) are its helpers, not its API.
            (symbol.exported || (symbol.kind !== 'variable' && symbol.kind !== 'constant')),
        )
        .map((symbol) => symbol.name),
    );
    const bound = Math.max(2, Math.floor(tests.length * DISTINCTIVE_SHARE));
    return [...names].filter((name) => {
      const count = testsUsingName(name);
      return count > 0 && count <= bound;
    });
  };
  let sourcesByStem: Map<string, number> | undefined;
  for (const source of sources) {
    if (isTest(source)) add(source, 'is a test', 10);
    // Counted only once a test reaches the source through other files (names × tests lookups).
    let distinctive: string[] | undefined;
    const stem = testStem(source);
    const sourceDirectory = path.posix.dirname(source);
    // A name several sources share (every Django app has a models.py) relates a test only to the
    // source beside it: djangoproject.com's checklists/tests/test_models.py is not blog/models.py's.
    sourcesByStem ??= countSourcesByStem(files, isTest);
    const sharedStem = (sourcesByStem.get(stem) ?? 0) > 1;
    for (const test of tests) {
      throwIfCancelled(request.signal);
      if (test === source) continue;
      const reached = reachOf(test).get(source);
      // Through an index file (which re-exports many modules), a test covers the source only when it
      // uses a name the source declares; through an ordinary module, it exercises it.
      if (reached !== undefined && (!reached.throughIndex || usesNameOf(test, source))) {
        add(
          test,
          reached.via === undefined ? `imports ${source}` : `imports ${source} through ${reached.via}`,
          reached.depth === 1 ? 5 : reached.throughIndex ? 4 : 3,
        );
        // Among the tests that reach it through other files (often all of a package's tests, as
        // Express's reach every module through its index), those using its rarer names come first.
        const identifiers = reached.via === undefined ? undefined : snapshot.analyses.get(test)?.identifiers;
        if (identifiers !== undefined) distinctive ??= distinctiveNamesOf(source);
        const used = identifiers === undefined ? [] : distinctive!.filter((name) => identifiers.has(name));
        if (used.length > 0) add(test, `uses ${used.slice(0, 3).join(', ')}`, Math.min(used.length, 3));
      }
      // A name relates a test to the source it is named after, not to another test: zod's
      // v4/classic/tests/string.test.ts ran with v3's and mini's string.test.ts.
      if (testStem(test) === stem && !isTest(source) && (!sharedStem || testBeside(test, sourceDirectory)))
        add(test, `named like ${source}`, 3);
      if (test.endsWith('_test.go') && path.posix.dirname(test) === sourceDirectory && source.endsWith('.go'))
        add(test, `same Go package as ${source}`, 2);
    }
  }
  const ranked = [...related.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const byCommand = new Map<string, RelatedCheck & { base: CheckCommand }>();
  const unrun: UnrunTest[] = [];
  for (const test of ranked) {
    const found = checkForTest(test.path, profile);
    if (!('command' in found)) {
      unrun.push({ path: test.path, reason: found.reason });
      continue;
    }
    const { command } = found;
    const entry = byCommand.get(command.command_id) ?? {
      command_id: command.command_id,
      framework: command.framework!,
      base_argv: command.argv,
      argv: [],
      cwd: command.cwd,
      files: [],
      ...(command.env === undefined ? {} : { env: command.env }),
      base: command,
    };
    entry.files.push(command.cwd === '.' ? test.path : path.posix.relative(command.cwd, test.path));
    byCommand.set(command.command_id, entry);
  }
  const commands = [...byCommand.values()].map(({ base, ...check }) => ({
    ...check,
    argv: isTestRunner(base.framework)
      ? selectionArgv(base.framework, base.argv, { files: check.files })
      : base.argv,
  }));
  return { tests: ranked, commands, unrun, profile, symbolFiles };
}

/** The names a module is usually bound under: its file stem, and that stem in camelCase. */
function namesOfFileStem(file: string): string[] {
  const stem = path.posix.basename(file).replace(/\.[^.]*$/, '');
  const camel = stem.replace(/[-_.]+([a-zA-Z0-9])/g, (_match, letter: string) => letter.toUpperCase());
  return camel === stem ? [stem] : [stem, camel];
}
