import path from 'node:path';
import { compileGlob } from '@assistant-kit/kernel';
import { tomlTable } from './python-source-roots.js';
import { FIXTURE_FOLDER, isTestFile } from './test-files.js';

/**
 * Test files a runner's configuration names beyond the conventions `isTestFile` knows: date-fns
 * keeps each function's tests in `src/<name>/test.ts` and tells vitest so (`test.include`), and a
 * pytest project may collect `check_*.py` (`python_files`). Read from the configuration, not
 * guessed from names, so `scripts/test.js` or Angular's `src/test.ts` stays what it is elsewhere.
 */
export interface ConfiguredTests {
  runner: 'vitest' | 'jest' | 'pytest' | 'django' | 'node:test';
  /** Workspace-relative folder the patterns are relative to ('.' for the root). */
  cwd: string;
  /** Globs relative to `cwd` (a glob without '/' matches a file name at any depth). */
  globs: string[];
  /** jest's `testRegex`, tested against '/' + the path relative to `cwd`, as jest tests it. */
  regexes?: string[];
  /**
   * jest's `testPathIgnorePatterns`, tested the same way: files the runner leaves out, whatever
   * else names them (immutable-js's `__tests__/ts-utils.ts`, a helper among its tests).
   */
  ignored?: string[];
  /**
   * The only tests of this language in `cwd`: the folder's one JavaScript runner is vitest or
   * node --test, which take no file by its folder alone (trpc's `__tests__/testClientResource.ts`
   * is a helper vitest never runs).
   */
  only?: true;
  /** The configuration they were read from. */
  source: string;
}

/** vitest's default `include`. */
export const VITEST_DEFAULT_INCLUDE = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];

/**
 * The files `node --test` runs when given none. The TypeScript forms are Node 24's, which strips
 * types by default; on Node 20 they are tests no runner here can run, and are said to be.
 */
export const NODE_TEST_DEFAULT_PATTERNS = [
  '**/*.test.{cjs,mjs,js,cts,mts,ts}',
  '**/*-test.{cjs,mjs,js,cts,mts,ts}',
  '**/*_test.{cjs,mjs,js,cts,mts,ts}',
  '**/test-*.{cjs,mjs,js,cts,mts,ts}',
  '**/test.{cjs,mjs,js,cts,mts,ts}',
  '**/test/**/*.{cjs,mjs,js,cts,mts,ts}',
];

/**
 * jest's own testMatch, used when its configuration names neither testMatch nor testRegex. Its
 * other default, `**\/__tests__/**\/*.[jt]s?(x)`, is left to the conventions, which tell the
 * helpers in a `__tests__` folder from its tests.
 */
const JEST_DEFAULT_TEST_MATCH = ['**/?(*.)+(spec|test).[jt]s?(x)'];

/** Skips a string, template or comment starting at `index`; returns the index after it, or `index`. */
function skipLiteral(text: string, index: number): number {
  const char = text[index];
  if (char === '"' || char === "'" || char === '`') {
    let at = index + 1;
    while (at < text.length && text[at] !== char) at += text[at] === '\\' ? 2 : 1;
    return at + 1;
  }
  if (char === '/' && text[index + 1] === '/') {
    const end = text.indexOf('\n', index);
    return end < 0 ? text.length : end;
  }
  if (char === '/' && text[index + 1] === '*') {
    const end = text.indexOf('*/', index + 2);
    return end < 0 ? text.length : end + 2;
  }
  return index;
}

/**
 * The value of property `name` written directly in the object literal whose `{` is at `open`
 * (not in an object nested in it: vitest's `coverage.include` names sources, not tests), as the
 * index just after `name:`.
 */
function ownPropertyValue(text: string, open: number, name: string): number | undefined {
  let depth = 0;
  const property = new RegExp(`^${name}\\s*:`);
  for (let at = open; at < text.length; ) {
    const skipped = skipLiteral(text, at);
    if (skipped !== at) {
      at = skipped;
      continue;
    }
    const char = text[at]!;
    if (char === '{' || char === '[' || char === '(') depth += 1;
    else if (char === '}' || char === ']' || char === ')') {
      depth -= 1;
      if (depth === 0) return undefined;
    } else if (depth === 1 && /[A-Za-z_$]/.test(char) && !/[\w$]/.test(text[at - 1] ?? '')) {
      const match = property.exec(text.slice(at, at + name.length + 40));
      if (match !== null) return at + match[0].length;
    }
    at += 1;
  }
  return undefined;
}

/**
 * The strings of the array literal starting at `index` (after spaces), or undefined when the
 * value is not an array of plain strings (a variable or a spread cannot be read without running
 * the configuration, and a partial list would be taken for the whole).
 */
function stringArrayAt(text: string, index: number): string[] | undefined {
  let at = index;
  while (/\s/.test(text[at] ?? '')) at += 1;
  if (text[at] !== '[') return undefined;
  const strings: string[] = [];
  for (at += 1; at < text.length; ) {
    const char = text[at]!;
    if (char === ']') return strings;
    if (/[\s,]/.test(char)) {
      at += 1;
      continue;
    }
    const after = skipLiteral(text, at);
    if (after === at) return undefined;
    const literal = text.slice(at, after);
    if (/^["'`]/.test(literal)) {
      const value = stringValue(literal);
      if (value === undefined) return undefined;
      strings.push(value);
    }
    at = after;
  }
  return undefined;
}

/**
 * A string literal's value (`'\\.'` is `\.`), or undefined for a template with a placeholder or
 * an escape that stands for a control character, which are not read as written.
 */
function stringValue(literal: string): string | undefined {
  const body = literal.slice(1, -1);
  if (/\$\{/.test(body) && literal.startsWith('`')) return undefined;
  if (/(^|[^\\])(\\\\)*\\[bfnrtuvx0-9]/.test(body)) return undefined;
  return body.replace(/\\(.)/g, '$1');
}

/** A string literal, or an array of them, starting at `index`. */
function stringsAt(text: string, index: number): string[] | undefined {
  let at = index;
  while (/\s/.test(text[at] ?? '')) at += 1;
  if (!/["'`]/.test(text[at] ?? '')) return stringArrayAt(text, at);
  const value = stringValue(text.slice(at, skipLiteral(text, at)));
  return value === undefined ? undefined : [value];
}

/** vitest's `test.include` in a vitest or vite configuration file. */
export function vitestIncludes(text: string): string[] | undefined {
  for (const match of text.matchAll(/(?<![\w$.])test\s*:\s*\{/g)) {
    const open = match.index + match[0].length - 1;
    const value = ownPropertyValue(text, open, 'include');
    if (value !== undefined) return stringArrayAt(text, value);
  }
  return undefined;
}

/** jest's `testMatch` / `testRegex` in a configuration object's text (a jest.config file). */
export function jestTestSelection(text: string): JestSelection {
  const at = (name: string) => new RegExp(`(?<![\\w$.])${name}\\s*:`).exec(text);
  const testMatch = at('testMatch');
  const testRegex = at('testRegex');
  const globs = testMatch === null ? undefined : stringArrayAt(text, testMatch.index + testMatch[0].length);
  const regexes = testRegex === null ? undefined : stringsAt(text, testRegex.index + testRegex[0].length);
  const ignore = at('testPathIgnorePatterns');
  const ignored = ignore === null ? undefined : stringArrayAt(text, ignore.index + ignore[0].length);
  return {
    ...(globs === undefined ? {} : { globs }),
    ...(regexes === undefined ? {} : { regexes }),
    ...(ignored === undefined ? {} : { ignored }),
  };
}

/** What jest's configuration says about which files are tests. */
export interface JestSelection {
  globs?: string[];
  regexes?: string[];
  ignored?: string[];
}

/** jest's selection from a package.json's `jest` key or a JSON configuration. */
export function jestJsonSelection(config: unknown): JestSelection {
  if (config === null || typeof config !== 'object') return {};
  const record = config as Record<string, unknown>;
  const strings = (value: unknown) =>
    typeof value === 'string'
      ? [value]
      : Array.isArray(value) && value.every((item) => typeof item === 'string')
        ? (value as string[])
        : undefined;
  const globs = strings(record.testMatch);
  const regexes = strings(record.testRegex);
  const ignored = strings(record.testPathIgnorePatterns);
  return {
    ...(globs === undefined ? {} : { globs }),
    ...(regexes === undefined ? {} : { regexes }),
    ...(ignored === undefined ? {} : { ignored }),
  };
}

/**
 * jest's tests as configured: its own testMatch when nothing else is said (it takes `test.js` and
 * `spec.ts` as tests, which the conventions here do not). `<rootDir>/` is the config's folder.
 */
export function jestConfiguredTests(selection: JestSelection, cwd: string, source: string): ConfiguredTests {
  const globs =
    selection.regexes !== undefined
      ? []
      : (selection.globs ?? JEST_DEFAULT_TEST_MATCH).map((glob) => glob.replace(/^<rootDir>\//, ''));
  return {
    runner: 'jest',
    cwd,
    globs,
    ...(selection.regexes === undefined ? {} : { regexes: selection.regexes }),
    ...(selection.ignored === undefined
      ? {}
      : { ignored: selection.ignored.map((pattern) => pattern.replace(/^<rootDir>/, '')) }),
    source,
  };
}

/** pytest's settings in the section its configuration file keeps them in. */
function pytestSection(base: string, text: string): { body: string; toml: boolean } | undefined {
  if (base === 'pyproject.toml') {
    const body = tomlTable(text, 'tool.pytest.ini_options') ?? tomlTable(text, 'tool.pytest');
    return body === undefined ? undefined : { body, toml: true };
  }
  const header =
    base === 'setup.cfg' ? 'tool:pytest' : base === 'pytest.ini' || base === 'tox.ini' ? 'pytest' : undefined;
  if (header === undefined) return undefined;
  const body = tomlTable(text, header);
  return body === undefined ? undefined : { body, toml: false };
}

/** Whether pytest takes its settings from this file (pytest.ini always; the others by section). */
export function holdsPytestSettings(base: string, text: string): boolean {
  return base === 'pytest.ini' || pytestSection(base, text) !== undefined;
}

/**
 * One pytest setting's values: a TOML string or array, or an ini value split on spaces, which may
 * go on over indented lines (`testpaths =\n    tests\n    integration`).
 */
export function pytestSetting(base: string, text: string, key: string): string[] | undefined {
  const section = pytestSection(base, text);
  if (section === undefined) return undefined;
  if (section.toml) {
    const match = new RegExp(`^\\s*${key}\\s*=`, 'm').exec(section.body);
    return match === null ? undefined : stringsAt(section.body, match.index + match[0].length);
  }
  const match = new RegExp(`^${key}\\s*[=:]([^\\n]*(?:\\n[ \\t]+[^\\n]*)*)`, 'm').exec(section.body);
  if (match === null) return undefined;
  const values = match[1]!
    .split('\n')
    .map((line) => line.replace(/(^|\s)[#;].*$/, ''))
    .join(' ')
    .split(/\s+/)
    .filter((value) => value !== '');
  return values.length === 0 ? undefined : values;
}

/** Compiles regular expressions from a configuration, leaving out any that do not compile. */
function compiledRegexes(sources: readonly string[] | undefined): RegExp[] {
  return (sources ?? []).flatMap((source) => {
    try {
      return [new RegExp(source)];
    } catch {
      return [];
    }
  });
}

/** Files a runner's configuration leaves out of its tests (jest's testPathIgnorePatterns). */
function ignoredMatcher(configured: readonly ConfiguredTests[]): (relative: string) => boolean {
  const ignores = configured.flatMap((entry) => {
    const regexes = compiledRegexes(entry.ignored);
    if (regexes.length === 0) return [];
    const prefix = entry.cwd === '.' ? '' : `${entry.cwd}/`;
    return [
      (relative: string) =>
        relative.startsWith(prefix) &&
        regexes.some((regex) => regex.test(`/${relative.slice(prefix.length)}`)),
    ];
  });
  return (relative) => ignores.some((ignored) => ignored(relative));
}

/**
 * For a script in the folder of a sole runner (`only`), whether that runner takes it as a test;
 * undefined elsewhere. The deepest folder with a JavaScript runner decides: a package with jest
 * below a root with vitest keeps jest's.
 */
function soleRunnerMatcher(
  configured: readonly ConfiguredTests[],
): (relative: string) => boolean | undefined {
  const javascript = configured
    .filter((entry) => entry.runner !== 'pytest' && entry.runner !== 'django')
    .sort((a, b) => b.cwd.length - a.cwd.length);
  if (!javascript.some((entry) => entry.only)) return () => undefined;
  const compiled = javascript.map((entry) => ({
    only: entry.only === true,
    prefix: entry.cwd === '.' ? '' : `${entry.cwd}/`,
    globs: entry.globs.flatMap((glob) => {
      try {
        return [compileGlob(glob)];
      } catch {
        return [];
      }
    }),
  }));
  return (relative) => {
    if (!/\.[cm]?[jt]sx?$/.test(relative)) return undefined;
    const deepest = compiled.find(({ prefix }) => relative.startsWith(prefix));
    if (deepest === undefined || !deepest.only) return undefined;
    const inner = relative.slice(deepest.prefix.length);
    return deepest.globs.some((glob) => glob.matches(inner));
  };
}

/** Compiles configured tests into one path test (workspace-relative paths). */
function configuredMatcher(configured: readonly ConfiguredTests[]): (relative: string) => boolean {
  const tests = configured.map((entry) => {
    const globs = entry.globs.flatMap((glob) => {
      try {
        return [compileGlob(glob)];
      } catch {
        return [];
      }
    });
    const regexes = compiledRegexes(entry.regexes);
    const prefix = entry.cwd === '.' ? '' : `${entry.cwd}/`;
    // pytest collects only Python files by these names; the JavaScript runners only scripts.
    const language = entry.runner === 'pytest' || entry.runner === 'django' ? /\.py$/ : /\.[cm]?[jt]sx?$/;
    return (relative: string) => {
      if (!relative.startsWith(prefix) || !language.test(relative) || /\.d\.[cm]?ts$/.test(relative))
        return false;
      const inner = relative.slice(prefix.length);
      return globs.some((glob) => glob.matches(inner)) || regexes.some((regex) => regex.test(`/${inner}`));
    };
  });
  return (relative) => tests.some((test) => test(relative));
}

const classifiers = new WeakMap<readonly ConfiguredTests[], (relative: string) => boolean>();

/**
 * Whether a file holds tests in this project: by the naming conventions (`isTestFile`), or because
 * a runner's configuration names it (`configured`, from the project profile), and no runner's
 * configuration leaves it out (jest's testPathIgnorePatterns). Folders of fixtures stay out
 * either way.
 */
export function projectTestFiles(configured: readonly ConfiguredTests[]): (relative: string) => boolean {
  if (configured.length === 0) return isTestFile;
  let classify = classifiers.get(configured);
  if (classify === undefined) {
    const matches = configuredMatcher(configured);
    const ignored = ignoredMatcher(configured);
    const sole = soleRunnerMatcher(configured);
    const verdicts = new Map<string, boolean>();
    classify = (relative) => {
      let verdict = verdicts.get(relative);
      if (verdict === undefined) {
        const outsideFixtures = !FIXTURE_FOLDER.test(relative) && !/(^|\/)node_modules\//.test(relative);
        const soleVerdict = sole(relative);
        verdict =
          (soleVerdict === undefined
            ? isTestFile(relative) || (outsideFixtures && matches(relative))
            : soleVerdict && outsideFixtures && !/\.d\.[cm]?ts$/.test(relative)) && !ignored(relative);
        verdicts.set(relative, verdict);
      }
      return verdict;
    };
    classifiers.set(configured, classify);
  }
  return classify;
}

/** The configuration files of a JavaScript package that may name its tests, by runner. */
export const VITEST_CONFIG = /^(vitest|vite)\.config\.[cm]?[jt]s$/;
export const JEST_CONFIG = /^jest\.config\.([cm]?[jt]s|json)$/;

/**
 * Reads one JavaScript package's configured tests from its package.json and config files.
 * `runners` are the package's JavaScript runners; `nodeTestDefault` says its scripts start
 * `node --test` on no files.
 */
export async function javascriptConfiguredTests(
  folder: string,
  manifest: Record<string, unknown>,
  manifestPath: string,
  runners: ReadonlySet<string>,
  configFiles: readonly string[],
  read: (relative: string) => Promise<string | undefined>,
  nodeTestDefault = false,
): Promise<ConfiguredTests[]> {
  const inFolder = (name: string) => (folder === '.' ? name : path.posix.join(folder, name));
  const found: ConfiguredTests[] = [];
  // The folder's only JavaScript runner decides alone which of its scripts are tests.
  const only = runners.size === 1 ? ({ only: true } as const) : {};
  if (runners.has('vitest')) {
    // vitest.config wins over vite.config, as vitest reads it first.
    const configs = configFiles.filter((name) => VITEST_CONFIG.test(name));
    const config = configs.find((name) => name.startsWith('vitest.')) ?? configs[0];
    const text = config === undefined ? undefined : await read(inFolder(config));
    const globs = text === undefined ? undefined : vitestIncludes(text);
    if (globs !== undefined)
      found.push({ runner: 'vitest', cwd: folder, globs, ...only, source: inFolder(config!) });
    else if (runners.size === 1)
      found.push({
        runner: 'vitest',
        cwd: folder,
        globs: VITEST_DEFAULT_INCLUDE,
        only: true,
        source: manifestPath,
      });
  }
  // node --test given no files runs its default patterns; given files or folders, those.
  if (runners.has('node:test') && runners.size === 1 && nodeTestDefault)
    found.push({
      runner: 'node:test',
      cwd: folder,
      globs: NODE_TEST_DEFAULT_PATTERNS,
      only: true,
      source: manifestPath,
    });
  if (runners.has('jest')) {
    const config = configFiles.find((name) => JEST_CONFIG.test(name));
    if ('jest' in manifest) {
      found.push(jestConfiguredTests(jestJsonSelection(manifest.jest), folder, manifestPath));
    } else if (config !== undefined) {
      const text = (await read(inFolder(config))) ?? '';
      let selection: JestSelection = {};
      if (config.endsWith('.json')) {
        try {
          selection = jestJsonSelection(JSON.parse(text));
        } catch {
          selection = {};
        }
      } else selection = jestTestSelection(text);
      found.push(jestConfiguredTests(selection, folder, inFolder(config)));
    } else found.push(jestConfiguredTests({}, folder, manifestPath));
  }
  return found;
}
