import path from 'node:path';
import { isRacyStamp, type Workspace } from '@assistant-kit/tool-core';
import { sameFileVersion } from '../files/folder-scan.js';
import type { WalkedFile } from '../files/workspace-walker.js';
import { languageOfPath } from '../languages.js';
import {
  type ConfiguredTests,
  holdsPytestSettings,
  JEST_CONFIG,
  javascriptConfiguredTests,
  projectTestFiles,
  pytestSetting,
  VITEST_CONFIG,
} from './configured-tests.js';
import { pythonSourceRoots } from './python-source-roots.js';
import { selectedRunArgv, selectionOptions } from './runner-options.js';
import { runnerBaseArgv, runnerOfScript, scriptSteps, type TestRunner } from './test-runners.js';

export type CheckKind = 'test' | 'lint' | 'typecheck' | 'build' | 'check' | 'script';

/** A runnable check with a stable id (`npm:test`, `vitest`, `pytest`, `make:check`…). */
export interface CheckCommand {
  command_id: string;
  kind: CheckKind;
  /** Literal argv, run without a shell. */
  argv: string[];
  /** Workspace-relative folder it runs in. */
  cwd: string;
  /** Test framework behind it, when known (vitest, jest, mocha, node:test, pytest, go, cargo). */
  framework?: string;
  /** Manifest it was found in. */
  source: string;
  /**
   * Environment it runs with beyond the sandbox's: PYTHONPATH naming a Python project's source
   * roots (`lib`, `src`…) when its tests import packages an install would have provided.
   */
  env?: Record<string, string>;
  /**
   * A runner check's tests as the package's scripts name them (files, folders, globs, relative to
   * `cwd`): axios runs mocha on `test/unit/**` and `test/module/test.js` and karma on `test/specs`,
   * so a spec there is no mocha test. Absent when a script starts the runner on its own default.
   */
  testPaths?: string[];
}

export interface TestFramework {
  name: string;
  cwd: string;
  evidence: string;
}

export interface ProjectProfile {
  name: string;
  /** The root manifest's one-line description, when it has one. */
  description?: string;
  languages: { name: string; files: number }[];
  manifests: string[];
  package_managers: string[];
  test_frameworks: TestFramework[];
  commands: CheckCommand[];
  test_files: number;
  /**
   * Tests the runners' configurations name beyond the naming conventions (vitest's `include`,
   * jest's `testMatch`, pytest's `python_files`); `projectTestFiles` applies them.
   */
  configured_tests: ConfiguredTests[];
}

/** Files that say where a Python project's packages are and how pytest imports them. */
const PYTHON_CONFIGURATION_NAMES = ['pyproject.toml', 'setup.cfg', 'pytest.ini', 'tox.ini'];

/** The order pytest looks for its settings in one folder (the first that holds them wins). */
const PYTEST_CONFIGURATION_ORDER = ['pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];

const MANIFEST_NAMES = new Set([
  'package.json',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'requirements.txt',
  'pytest.ini',
  'tox.ini',
  'conftest.py',
  'go.mod',
  'Cargo.toml',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'Gemfile',
  'composer.json',
  'deno.json',
  'tsconfig.json',
]);

/** Folders whose manifests (and manage.py) belong to fixtures, examples or vendored code. */
const NOT_THE_PROJECTS_OWN = /(^|\/)(fixtures?|examples?|vendor|third_party|testdata)\//;

/** Manifests deeper than this are ignored (vendored or example projects). */
const MAX_MANIFEST_DEPTH = 4;

/** Programs whose runs only lint or format-check code. */
const LINT_PROGRAMS =
  /^(eslint|xo|standard|biome|prettier|stylelint|tslint|oxlint|ruff|flake8|pylint|black|markdownlint|publint|attw)$/;
/** Programs whose runs only type-check. */
const TYPECHECK_PROGRAMS = /^(tsc|vue-tsc|tsd|mypy|pyright|flow)$/;

/**
 * What a package script checks, from its steps first and its name second; undefined for scripts
 * that are not checks (start, dev, bench, format, release, watch modes, snapshot updates…), which the
 * profile omits.
 */
export function kindOfScript(name: string, body: string): CheckKind | undefined {
  if (/watch/.test(name) || /--watch\b/.test(body)) return undefined;
  // Updating snapshots rewrites test files: a change, not a check (tap --snapshot, jest -u).
  if (/--snapshot\b|--update-?snapshots?\b|--updateSnapshot\b|(^|\s)-u(\s|$)/.test(body)) return undefined;
  const programs = scriptSteps(body).map((step) => {
    const program = step.argv.find((part) => !/^(npx|pnpm|yarn|exec|-.*)$/.test(part)) ?? '';
    return path.posix.basename(program);
  });
  if (/^build($|:)/.test(name)) return 'build';
  if (programs.length > 0 && programs.every((program) => LINT_PROGRAMS.test(program)))
    return /--write\b|--fix\b/.test(body) ? undefined : 'lint';
  if (programs.length > 0 && programs.every((program) => TYPECHECK_PROGRAMS.test(program)))
    return 'typecheck';
  if (runnerOfScript(body) !== undefined) return 'test';
  if (/^(test|tests|spec|e2e)(:|$)|:(test|spec|e2e)$/.test(name)) {
    if (/lint/.test(name)) return 'lint';
    if (/types?$|typecheck/.test(name)) return 'typecheck';
    return 'test';
  }
  if (/(^|:)lint($|:)|format:check|fmt:check/.test(name)) return 'lint';
  if (/typecheck|type-check|^types$|^tsc$/.test(name)) return 'typecheck';
  if (/^build($|:)/.test(name)) return 'build';
  if (/^(check|verify|ci|validate)($|:)/.test(name)) return 'check';
  return undefined;
}

function scoped(id: string, folder: string): string {
  return folder === '.' ? id : `${id}@${folder}`;
}

/** A file's size, mtime and ctime as a walk saw them (through lstat: a regular file, not a symlink). */
export interface ListedVersion {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** Texts read through the Workspace, per workspace, with the listed version they were read at. */
const textCache = new WeakMap<Workspace, Map<string, ListedVersion & { text: string }>>();
const TEXT_CACHE_ENTRIES = 2_000;

/**
 * Reads a small workspace file as text through the Workspace (symlinks out of it are refused).
 * With the version a walk listed, a text read earlier at that same version is reused, so a
 * warm repo map does not re-read every manifest; without one it always reads. A text read while
 * its version's ctime was racy (tool-core `isRacyStamp`: a rewrite in the same clock tick, same
 * size, mtime set back, would keep the version) is not kept.
 */
export async function readWorkspaceText(
  workspace: Workspace,
  relative: string,
  version?: ListedVersion,
): Promise<string | undefined> {
  let cache = textCache.get(workspace);
  const cached = cache?.get(relative);
  if (version !== undefined && cached !== undefined && sameFileVersion(cached, version)) return cached.text;
  // Before the read: the text then is at least as new as this moment.
  const observedAt = Date.now();
  try {
    const file = await workspace.readFile(relative, { observe: false, maxBytes: 2_000_000 });
    const text = file.bytes.toString('utf8');
    if (version !== undefined && !isRacyStamp(version.ctimeMs, observedAt)) {
      if (cache === undefined) {
        cache = new Map();
        textCache.set(workspace, cache);
      }
      if (cache.size >= TEXT_CACHE_ENTRIES) cache.clear();
      cache.set(relative, { size: version.size, mtimeMs: version.mtimeMs, ctimeMs: version.ctimeMs, text });
    }
    return text;
  } catch {
    return undefined;
  }
}

function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Python configuration that names pytest: where it lives and what it says. */
function pytestConfigured(base: string, text: string): boolean {
  switch (base) {
    case 'pytest.ini':
    case 'conftest.py':
      return true;
    case 'pyproject.toml':
      return /^\[tool\.pytest(\.ini_options)?\]/m.test(text) || /["']pytest\b/.test(text);
    case 'setup.cfg':
      return /^\[tool:pytest\]/m.test(text) || /^\s*pytest\b/m.test(text);
    case 'tox.ini':
      return /^\[pytest\]/m.test(text) || /\bpytest\b/.test(text);
    case 'requirements.txt':
    case 'setup.py':
      return /\bpytest\b/.test(text);
    default:
      return false;
  }
}

/**
 * Detects languages, manifests, package managers, test frameworks and runnable check commands
 * (tests, lint, type checks, builds; never start, bench or format scripts). Only folders up to a
 * few levels deep are considered, so vendored examples do not pollute it. Manifests are read
 * through the Workspace, so a symlink planted in the workspace cannot make it read outside.
 */
export async function detectProjectProfile(
  workspace: Workspace,
  files: readonly WalkedFile[],
  pathsKey?: string,
): Promise<ProjectProfile> {
  // The profile follows from the paths and the texts it read: with the same paths (`pathsKey`,
  // see IndexSnapshot) and those files at the same version, the last one still holds. A
  // repo map after an edit of one source file then skips a pass over every path (about 80 ms at
  // 50,000 files).
  const remembered = pathsKey === undefined ? undefined : rememberedProfiles.get(workspace);
  if (
    remembered !== undefined &&
    remembered.pathsKey === pathsKey &&
    readsStillCurrent(remembered.reads, files)
  )
    return structuredClone(remembered.profile);
  const reads = new Map<string, ListedVersion>();
  // A text read without a version, or under a racy one (see readWorkspaceText), cannot vouch
  // for the profile later.
  let unvouched = false;
  const read = (relative: string, version: ListedVersion | undefined) => {
    if (version === undefined || isRacyStamp(version.ctimeMs, Date.now())) unvouched = true;
    if (version !== undefined)
      reads.set(relative, { size: version.size, mtimeMs: version.mtimeMs, ctimeMs: version.ctimeMs });
    return readWorkspaceText(workspace, relative, version);
  };
  const profile = await computeProjectProfile(workspace, files, read);
  if (pathsKey !== undefined && !unvouched)
    rememberedProfiles.set(workspace, { pathsKey, reads, profile: structuredClone(profile) });
  return profile;
}

const rememberedProfiles = new WeakMap<
  Workspace,
  { pathsKey: string; reads: Map<string, ListedVersion>; profile: ProjectProfile }
>();

function readsStillCurrent(reads: ReadonlyMap<string, ListedVersion>, files: readonly WalkedFile[]): boolean {
  let found = 0;
  for (const file of files) {
    const version = reads.get(file.relative);
    if (version === undefined) continue;
    if (!sameFileVersion(version, file)) return false;
    found += 1;
  }
  return found === reads.size;
}

async function computeProjectProfile(
  workspace: Workspace,
  files: readonly WalkedFile[],
  read: (relative: string, version: ListedVersion | undefined) => Promise<string | undefined>,
): Promise<ProjectProfile> {
  const root = workspace.root;
  const relativeSet = new Set(files.map((file) => file.relative));
  const versions = new Map(files.map((file) => [file.relative, file] as const));
  const languageCounts = new Map<string, number>();
  for (const file of files) {
    const language = languageOfPath(file.relative);
    if (language?.code) languageCounts.set(language.name, (languageCounts.get(language.name) ?? 0) + 1);
  }
  const manifests = files
    .map((file) => file.relative)
    .filter(
      (relative) =>
        MANIFEST_NAMES.has(path.posix.basename(relative)) && relative.split('/').length <= MAX_MANIFEST_DEPTH,
    )
    .filter((relative) => !NOT_THE_PROJECTS_OWN.test(relative));
  const commands: CheckCommand[] = [];
  const frameworks: TestFramework[] = [];
  const packageManagers = new Set<string>();
  let name = path.basename(root);
  let description: string | undefined;
  const configuredTests: ConfiguredTests[] = [];
  const pythonFolders = new Map<string, string>();
  // Names of each folder's files, for configuration files next to a manifest (one pass, not one
  // scan of every file per manifest and runner: that cost seconds in a 50,000-file monorepo).
  const childNames = new Map<string, string[]>();
  for (const file of files) {
    const slash = file.relative.lastIndexOf('/');
    const folder = slash < 0 ? '.' : file.relative.slice(0, slash);
    const names = childNames.get(folder);
    if (names === undefined) childNames.set(folder, [file.relative.slice(slash + 1)]);
    else names.push(file.relative.slice(slash + 1));
  }

  const addFramework = (
    framework: TestRunner,
    folder: string,
    argv: string[],
    evidence: string,
    source: string,
    env: Record<string, string> = {},
    testPaths?: string[],
  ) => {
    const id = scoped(
      framework === 'node:test'
        ? 'node-test'
        : framework === 'go' || framework === 'cargo'
          ? `${framework}:test`
          : framework,
      folder,
    );
    if (commands.some((command) => command.command_id === id)) return;
    frameworks.push({ name: framework, cwd: folder, evidence });
    commands.push({
      command_id: id,
      kind: 'test',
      argv,
      cwd: folder,
      framework,
      source,
      ...(Object.keys(env).length === 0 ? {} : { env }),
      ...(testPaths === undefined ? {} : { testPaths }),
    });
  };

  for (const manifest of manifests) {
    const folder = path.posix.dirname(manifest);
    const inFolder = (file: string) => (folder === '.' ? file : `${folder}/${file}`);
    const base = path.posix.basename(manifest);
    if (base === 'package.json') {
      const json = parseJsonObject(await read(manifest, versions.get(manifest)));
      if (json === undefined) continue;
      if (folder === '.' && typeof json.name === 'string') name = json.name;
      if (folder === '.' && typeof json.description === 'string') description = json.description;
      const manager =
        relativeSet.has(inFolder('pnpm-lock.yaml')) || relativeSet.has('pnpm-lock.yaml')
          ? 'pnpm'
          : relativeSet.has(inFolder('yarn.lock')) || relativeSet.has('yarn.lock')
            ? 'yarn'
            : relativeSet.has(inFolder('bun.lockb')) || relativeSet.has('bun.lock')
              ? 'bun'
              : 'npm';
      packageManagers.add(manager);
      const scripts = (json.scripts ?? {}) as Record<string, unknown>;
      for (const [script, body] of Object.entries(scripts)) {
        if (typeof body !== 'string' || /^(pre|post)/.test(script)) continue;
        const kind = kindOfScript(script, body);
        if (kind === undefined) continue;
        const runner = kind === 'test' ? runnerOfScript(body)?.runner : undefined;
        commands.push({
          command_id: scoped(`npm:${script}`, folder),
          kind,
          argv: [manager, 'run', script],
          cwd: folder,
          ...(runner === undefined ? {} : { framework: runner }),
          source: manifest,
        });
      }
      const dependencies = {
        ...(json.dependencies as object),
        ...(json.devDependencies as object),
      } as Record<string, unknown>;
      // Each script's runner, read once: the `test` script first, so a runner's check starts it
      // as `npm test` does when several scripts run it.
      const startedByScripts = [
        ...new Set([scripts.test, ...Object.values(scripts)].filter((value) => typeof value === 'string')),
      ].flatMap((body) => {
        const started = runnerOfScript(body);
        return started === undefined ? [] : [started];
      });
      const scriptRunners = new Set(startedByScripts.map((started) => started.runner));
      const hasConfig = (pattern: RegExp) =>
        (childNames.get(folder) ?? []).some((child) => pattern.test(child));
      const evidenceOf = (runner: TestRunner, configPattern: RegExp, key?: string): string | undefined => {
        if (scriptRunners.has(runner)) return `${manifest} scripts run ${runner}`;
        if (runner in dependencies) return `${manifest} lists ${runner}`;
        if (key !== undefined && key in json) return `${manifest} has an "${key}" section`;
        if (hasConfig(configPattern)) return `${runner} configuration file`;
        return undefined;
      };
      const candidates: [TestRunner, RegExp, string?][] = [
        ['vitest', /^vitest\.(config|workspace)\.[cm]?[jt]s$/],
        ['jest', /^jest\.config\.[cm]?[jt]s(on)?$/, 'jest'],
        ['mocha', /^\.mocharc\.(json|jsonc|ya?ml|[cm]?js)$/, 'mocha'],
        ['ava', /^ava\.config\.[cm]?js$/, 'ava'],
        ['tap', /^\.taprc$/, 'tap'],
      ];
      /**
       * The runner as the package's scripts start it (the `test` script first), without the tests
       * they list: a run of some tests keeps `--require test/support/env --check-leaks` (Express),
       * `--import tsx`, or the script's `NODE_ENV=test`. `testPaths` are the tests every script of
       * this runner names; none when one of them runs the runner's own default.
       */
      const scriptInvocation = (runner: TestRunner) => {
        const ofRunner = startedByScripts.filter((started) => started.runner === runner);
        const [first] = ofRunner;
        if (first === undefined) return { argv: runnerBaseArgv(runner), env: {}, note: '' };
        const reads = ofRunner.map((started) => selectionOptions(runner, started.argv));
        const named = reads.map((read) =>
          read === undefined || 'unknownOption' in read ? [] : read.testPaths,
        );
        const testPaths = named.every((paths) => paths.length > 0) ? [...new Set(named.flat())] : undefined;
        const carried = reads[0];
        if (carried === undefined || 'unknownOption' in carried)
          return {
            argv: runnerBaseArgv(runner),
            env: first.env,
            testPaths,
            note:
              carried === undefined
                ? ''
                : ` (its options are not carried: ${carried.unknownOption} is an option of unknown arity)`,
          };
        return {
          argv: selectedRunArgv(runner, first.argv, carried.options),
          env: first.env,
          testPaths,
          note: '',
        };
      };
      const runnersHere = new Set<string>();
      for (const [runner, configPattern, key] of candidates) {
        const evidence = evidenceOf(runner, configPattern, key);
        if (evidence === undefined) continue;
        runnersHere.add(runner);
        const invocation = scriptInvocation(runner);
        addFramework(
          runner,
          folder,
          invocation.argv,
          `${evidence}${invocation.note}`,
          manifest,
          invocation.env,
          invocation.testPaths,
        );
      }
      if (scriptRunners.has('node:test')) runnersHere.add('node:test');
      configuredTests.push(
        ...(await javascriptConfiguredTests(
          folder,
          json,
          manifest,
          runnersHere,
          (childNames.get(folder) ?? []).filter(
            (child) => VITEST_CONFIG.test(child) || JEST_CONFIG.test(child),
          ),
          (relative) => read(relative, versions.get(relative)),
          scriptRunners.has('node:test') && scriptInvocation('node:test').testPaths === undefined,
        )),
      );
      if (scriptRunners.has('node:test')) {
        const invocation = scriptInvocation('node:test');
        addFramework(
          'node:test',
          folder,
          invocation.argv,
          `${manifest} runs node --test${invocation.note}`,
          manifest,
          invocation.env,
          invocation.testPaths,
        );
      }
      if ('typescript' in dependencies && relativeSet.has(inFolder('tsconfig.json'))) {
        commands.push({
          command_id: scoped('tsc', folder),
          kind: 'typecheck',
          argv: ['node_modules/.bin/tsc', '--noEmit', '-p', 'tsconfig.json'],
          cwd: folder,
          source: manifest,
        });
      }
    } else if (
      base === 'pyproject.toml' ||
      base === 'pytest.ini' ||
      base === 'tox.ini' ||
      base === 'setup.cfg' ||
      base === 'conftest.py' ||
      base === 'requirements.txt' ||
      base === 'setup.py'
    ) {
      const text = (await read(manifest, versions.get(manifest))) ?? '';
      if (base === 'pyproject.toml') {
        const projectName = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(text)?.[1];
        if (folder === '.' && projectName !== undefined && !relativeSet.has('package.json')) {
          name = projectName;
          description = /^\s*description\s*=\s*["']([^"']+)["']/m.exec(text)?.[1];
        }
        packageManagers.add(
          /\[tool\.poetry\]/.test(text)
            ? 'poetry'
            : /\[tool\.uv\]/.test(text) || relativeSet.has(inFolder('uv.lock'))
              ? 'uv'
              : 'pip',
        );
      }
      const pythonFiles = pytestSetting(base, text, 'python_files');
      if (pythonFiles !== undefined)
        configuredTests.push({ runner: 'pytest', cwd: folder, globs: pythonFiles, source: manifest });
      if (pytestConfigured(base, text) && !pythonFolders.has(folder))
        pythonFolders.set(folder, `${manifest} configures pytest`);
      else if (!pythonFolders.has(folder)) pythonFolders.set(folder, '');
    } else if (base === 'go.mod') {
      packageManagers.add('go');
      addFramework('go', folder, runnerBaseArgv('go'), manifest, manifest);
      commands.push({
        command_id: scoped('go:vet', folder),
        kind: 'lint',
        argv: ['go', 'vet', './...'],
        cwd: folder,
        source: manifest,
      });
    } else if (base === 'Cargo.toml') {
      packageManagers.add('cargo');
      addFramework('cargo', folder, runnerBaseArgv('cargo'), manifest, manifest);
      commands.push({
        command_id: scoped('cargo:check', folder),
        kind: 'typecheck',
        argv: ['cargo', 'check', '--offline'],
        cwd: folder,
        source: manifest,
      });
    } else if (base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile') {
      const text = (await read(manifest, versions.get(manifest))) ?? '';
      const targets = new Set<string>();
      for (const match of text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)/gm)) targets.add(match[1]!);
      for (const target of targets) {
        const kind = kindOfScript(target, '');
        if (kind === undefined) continue;
        commands.push({
          command_id: scoped(`make:${target}`, folder),
          kind,
          argv: ['make', target],
          cwd: folder,
          source: manifest,
        });
      }
    }
  }
  // Django projects: manage.py runs Django's test runner, which finds test*.py (an app's tests.py)
  // and sets the project up (settings, a test database); `python3 -m unittest` cannot.
  const djangoProjects: { folder: string; manage: string }[] = [];
  for (const file of files) {
    if (path.posix.basename(file.relative) !== 'manage.py') continue;
    if (file.relative.split('/').length > MAX_MANIFEST_DEPTH) continue;
    if (NOT_THE_PROJECTS_OWN.test(file.relative)) continue;
    const text = (await read(file.relative, file)) ?? '';
    if (!/\bdjango\b/i.test(text)) continue;
    const folder = path.posix.dirname(file.relative);
    djangoProjects.push({ folder, manage: file.relative });
    configuredTests.push({ runner: 'django', cwd: folder, globs: ['test*.py'], source: file.relative });
  }
  const isTest = projectTestFiles(configuredTests);
  const testFiles = files.filter((file) => isTest(file.relative));
  const pythonTests = testFiles.filter((file) => file.relative.endsWith('.py'));
  // Python tests run with pytest when anything configures or imports it, else with unittest.
  if (pythonTests.length > 0) {
    if (pythonFolders.size === 0) pythonFolders.set('.', '');
    const sample = await Promise.all(
      pythonTests.slice(0, 20).map(async (file) => (await read(file.relative, file)) ?? ''),
    );
    const importsPytest = sample.some((text) => /^\s*(import pytest|from pytest\b)/m.test(text));
    const importsUnittest = sample.some((text) => /^\s*(import unittest|from unittest\b)/m.test(text));
    // pytest's rootdir: the shallowest folder whose configuration names it (a conftest.py deeper
    // down is loaded from there, it does not move the rootdir).
    const configuredFolders = [...pythonFolders].filter(([, evidence]) => evidence !== '');
    const byDepth = (a: [string, string], b: [string, string]) =>
      (a[0] === '.' ? 0 : a[0].split('/').length) - (b[0] === '.' ? 0 : b[0].split('/').length);
    const rootConfigured = configuredFolders
      .filter(([, evidence]) => !/conftest\.py configures/.test(evidence))
      .sort(byDepth)[0];
    const folder = rootConfigured?.[0] ?? [...pythonFolders].sort(byDepth)[0]![0];
    const configured = rootConfigured?.[1] ?? configuredFolders[0]?.[1] ?? '';
    const evidence =
      configured !== '' ? configured : importsPytest ? 'Python tests import pytest' : undefined;
    const source =
      manifests.find((manifest) => path.posix.dirname(manifest) === folder) ?? pythonTests[0]!.relative;
    const django = djangoProjects.sort((a, b) => a.folder.length - b.folder.length)[0];
    if (evidence !== undefined) addFramework('pytest', folder, runnerBaseArgv('pytest'), evidence, source);
    else if (django !== undefined)
      addFramework(
        'django',
        django.folder,
        runnerBaseArgv('django'),
        `${django.manage} runs Django's test runner`,
        django.manage,
      );
    else if (importsUnittest) {
      // discover only looks into packages; tests/ without __init__.py is named as the start folder.
      const testFolder = path.posix.dirname(pythonTests[0]!.relative);
      const discover =
        testFolder !== '.' && !relativeSet.has(`${testFolder}/__init__.py`)
          ? [
              'discover',
              '-s',
              folder === '.' ? testFolder : path.posix.relative(folder, testFolder),
              '-t',
              '.',
            ]
          : [];
      addFramework(
        'unittest',
        folder,
        [...runnerBaseArgv('unittest'), ...discover],
        'Python tests import unittest and nothing configures pytest',
        source,
      );
    } else addFramework('pytest', folder, runnerBaseArgv('pytest'), 'Python test files (test_*.py)', source);
    // Tests of a project that is not installed import its packages from its source roots.
    const configurations = new Map<string, string>();
    for (const base of PYTHON_CONFIGURATION_NAMES) {
      const relative = folder === '.' ? base : `${folder}/${base}`;
      if (!relativeSet.has(relative)) continue;
      const text = await read(relative, versions.get(relative));
      if (text !== undefined) configurations.set(base, text);
    }
    const prefix = folder === '.' ? '' : `${folder}/`;
    const below = files
      .filter((file) => file.relative.startsWith(prefix))
      .map((file) => file.relative.slice(prefix.length));
    const roots = pythonSourceRoots(configurations, below);
    const python = commands.find(
      (command) =>
        command.cwd === folder &&
        (command.framework === 'pytest' ||
          command.framework === 'unittest' ||
          command.framework === 'django'),
    );
    if (python !== undefined && roots.length > 0) python.env = { PYTHONPATH: roots.join(':') };
    // pytest's `testpaths` (in its first configuration file, as pytest picks it): the tests the
    // project runs. attrs names `tests`, and its `bench/test_benchmarks.py` is no test run of it.
    if (python?.framework === 'pytest') {
      for (const base of PYTEST_CONFIGURATION_ORDER) {
        const text = configurations.get(base);
        if (text === undefined || !holdsPytestSettings(base, text)) continue;
        const testPaths = pytestSetting(base, text, 'testpaths');
        if (testPaths !== undefined) python.testPaths = testPaths;
        break;
      }
    }
  }
  const seen = new Set<string>();
  const unique = commands.filter((command) => {
    if (seen.has(command.command_id)) return false;
    seen.add(command.command_id);
    return true;
  });
  return {
    name,
    ...(description === undefined ? {} : { description }),
    languages: [...languageCounts]
      .map(([language, count]) => ({ name: language, files: count }))
      .sort((a, b) => b.files - a.files),
    manifests,
    package_managers: [...packageManagers],
    test_frameworks: frameworks,
    commands: unique,
    test_files: testFiles.length,
    configured_tests: configuredTests,
  };
}
