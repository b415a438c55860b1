import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { WalkedFile } from '../files/workspace-walker.js';
import { languageOfPath } from '../languages.js';
import { isTestFile } from './test-files.js';

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
}

export interface TestFramework {
  name: string;
  cwd: string;
  evidence: string;
}

export interface ProjectProfile {
  name: string;
  languages: { name: string; files: number }[];
  manifests: string[];
  package_managers: string[];
  test_frameworks: TestFramework[];
  commands: CheckCommand[];
  test_files: number;
}

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

/** Manifests deeper than this are ignored (vendored or example projects). */
const MAX_MANIFEST_DEPTH = 4;

function kindOfScript(name: string): CheckKind {
  if (/^test|:test|^e2e|^spec/.test(name)) return 'test';
  if (/lint|format:check|^fmt/.test(name)) return 'lint';
  if (/typecheck|type-check|^tsc|types/.test(name)) return 'typecheck';
  if (/^build/.test(name)) return 'build';
  if (/^check|verify|^ci$/.test(name)) return 'check';
  return 'script';
}

function scoped(id: string, folder: string): string {
  return folder === '.' ? id : `${id}@${folder}`;
}

async function readJson(absolute: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value = JSON.parse(await readFile(absolute, 'utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the argv of a framework command restricted to some test files (relative to cwd). */
export function frameworkArgvWithFiles(
  framework: string,
  base: readonly string[],
  files: readonly string[],
): string[] {
  if (files.length === 0) return [...base];
  switch (framework) {
    case 'go':
      return ['go', 'test', ...[...new Set(files.map((file) => `./${path.posix.dirname(file)}`))]];
    case 'cargo':
      return [...base];
    default:
      return [...base, ...files];
  }
}

/**
 * Detects languages, manifests, package managers, test frameworks and runnable check commands.
 * Only folders up to a few levels deep are considered, so vendored examples do not pollute it.
 */
export async function detectProjectProfile(
  root: string,
  files: readonly WalkedFile[],
): Promise<ProjectProfile> {
  const relativeSet = new Set(files.map((file) => file.relative));
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
    .filter((relative) => !/(^|\/)(fixtures?|examples?|vendor|third_party)\//.test(relative));
  const commands: CheckCommand[] = [];
  const frameworks: TestFramework[] = [];
  const packageManagers = new Set<string>();
  let name = path.basename(root);
  const testFiles = files.filter((file) => isTestFile(file.relative));

  for (const manifest of manifests) {
    const folder = path.posix.dirname(manifest);
    const inFolder = (file: string) => (folder === '.' ? file : `${folder}/${file}`);
    const base = path.posix.basename(manifest);
    const absolute = path.join(root, manifest);
    if (base === 'package.json') {
      const json = await readJson(absolute);
      if (json === undefined) continue;
      if (folder === '.' && typeof json.name === 'string') name = json.name;
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
        commands.push({
          command_id: scoped(`npm:${script}`, folder),
          kind: kindOfScript(script),
          argv: [manager, 'run', script],
          cwd: folder,
          source: manifest,
        });
      }
      const dependencies = {
        ...(json.dependencies as object),
        ...(json.devDependencies as object),
      } as Record<string, unknown>;
      const scriptText = Object.values(scripts)
        .filter((value) => typeof value === 'string')
        .join(' ');
      const binary = (tool: string) =>
        folder === '.' ? `node_modules/.bin/${tool}` : `node_modules/.bin/${tool}`;
      const addFramework = (framework: string, argv: string[], evidence: string) => {
        frameworks.push({ name: framework, cwd: folder, evidence });
        commands.push({
          command_id: scoped(framework === 'node:test' ? 'node-test' : framework, folder),
          kind: 'test',
          argv,
          cwd: folder,
          framework,
          source: manifest,
        });
      };
      if ('vitest' in dependencies || /\bvitest\b/.test(scriptText))
        addFramework('vitest', [binary('vitest'), 'run'], `${manifest} lists vitest`);
      if ('jest' in dependencies || /\bjest\b/.test(scriptText))
        addFramework('jest', [binary('jest')], `${manifest} lists jest`);
      if ('mocha' in dependencies || /\bmocha\b/.test(scriptText))
        addFramework('mocha', [binary('mocha')], `${manifest} lists mocha`);
      if (/\bnode\s+(--[a-z-]+\s+)*--test\b/.test(scriptText))
        addFramework('node:test', ['node', '--test'], `${manifest} runs node --test`);
      if ('typescript' in dependencies && relativeSet.has(inFolder('tsconfig.json'))) {
        commands.push({
          command_id: scoped('tsc', folder),
          kind: 'typecheck',
          argv: [binary('tsc'), '--noEmit', '-p', 'tsconfig.json'],
          cwd: folder,
          source: manifest,
        });
      }
      for (const command of commands) {
        if (command.source === manifest && command.framework === undefined && command.kind === 'test') {
          const body = String(scripts[command.argv[2] ?? ''] ?? '');
          const framework = /\bvitest\b/.test(body)
            ? 'vitest'
            : /\bjest\b/.test(body)
              ? 'jest'
              : /\bmocha\b/.test(body)
                ? 'mocha'
                : /--test\b/.test(body)
                  ? 'node:test'
                  : undefined;
          if (framework !== undefined) command.framework = framework;
        }
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
      const text = await readFile(absolute, 'utf8').catch(() => '');
      if (base === 'pyproject.toml') {
        const projectName = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(text)?.[1];
        if (folder === '.' && projectName !== undefined && !relativeSet.has('package.json'))
          name = projectName;
        packageManagers.add(
          /\[tool\.poetry\]/.test(text)
            ? 'poetry'
            : /\[tool\.uv\]|uv\.lock/.test(text) || relativeSet.has(inFolder('uv.lock'))
              ? 'uv'
              : 'pip',
        );
      }
      const mentionsPytest = /pytest/.test(text) || base === 'pytest.ini' || base === 'conftest.py';
      const hasPythonTests = testFiles.some((file) => file.relative.endsWith('.py'));
      if (
        (mentionsPytest || hasPythonTests) &&
        !commands.some((command) => command.command_id === scoped('pytest', folder))
      ) {
        frameworks.push({
          name: 'pytest',
          cwd: folder,
          evidence: mentionsPytest ? `${manifest} mentions pytest` : 'Python test files (test_*.py)',
        });
        commands.push({
          command_id: scoped('pytest', folder),
          kind: 'test',
          argv: ['python3', '-m', 'pytest'],
          cwd: folder,
          framework: 'pytest',
          source: manifest,
        });
      }
    } else if (base === 'go.mod') {
      packageManagers.add('go');
      frameworks.push({ name: 'go', cwd: folder, evidence: manifest });
      commands.push({
        command_id: scoped('go:test', folder),
        kind: 'test',
        argv: ['go', 'test', './...'],
        cwd: folder,
        framework: 'go',
        source: manifest,
      });
      commands.push({
        command_id: scoped('go:vet', folder),
        kind: 'lint',
        argv: ['go', 'vet', './...'],
        cwd: folder,
        source: manifest,
      });
    } else if (base === 'Cargo.toml') {
      packageManagers.add('cargo');
      frameworks.push({ name: 'cargo', cwd: folder, evidence: manifest });
      commands.push({
        command_id: scoped('cargo:test', folder),
        kind: 'test',
        argv: ['cargo', 'test', '--offline'],
        cwd: folder,
        framework: 'cargo',
        source: manifest,
      });
      commands.push({
        command_id: scoped('cargo:check', folder),
        kind: 'typecheck',
        argv: ['cargo', 'check', '--offline'],
        cwd: folder,
        source: manifest,
      });
    } else if (base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile') {
      const text = await readFile(absolute, 'utf8').catch(() => '');
      const targets = new Set<string>();
      for (const match of text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)/gm)) targets.add(match[1]!);
      for (const target of targets) {
        commands.push({
          command_id: scoped(`make:${target}`, folder),
          kind: kindOfScript(target),
          argv: ['make', target],
          cwd: folder,
          source: manifest,
        });
      }
    }
  }
  // Python tests without any manifest still run with pytest or unittest.
  if (
    !commands.some((command) => command.framework === 'pytest') &&
    testFiles.some((file) => file.relative.endsWith('.py'))
  ) {
    frameworks.push({ name: 'pytest', cwd: '.', evidence: 'Python test files (test_*.py)' });
    commands.push({
      command_id: 'pytest',
      kind: 'test',
      argv: ['python3', '-m', 'pytest'],
      cwd: '.',
      framework: 'pytest',
      source: testFiles.find((file) => file.relative.endsWith('.py'))!.relative,
    });
  }
  const seen = new Set<string>();
  const unique = commands.filter((command) => {
    if (seen.has(command.command_id)) return false;
    seen.add(command.command_id);
    return true;
  });
  return {
    name,
    languages: [...languageCounts]
      .map(([language, count]) => ({ name: language, files: count }))
      .sort((a, b) => b.files - a.files),
    manifests,
    package_managers: [...packageManagers],
    test_frameworks: frameworks,
    commands: unique,
    test_files: testFiles.length,
  };
}
