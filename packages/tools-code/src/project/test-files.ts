import path from 'node:path';

const TEST_PATTERNS = [
  /(^|\/)(test|tests|__tests__|spec|specs|e2e)\//,
  /\.(test|spec|e2e)\.[cm]?[jt]sx?$/,
  /(^|\/)test_[^/]+\.py$/,
  /_test\.py$/,
  /_test\.go$/,
  /(Test|Tests|IT)\.(java|kt)$/,
  /_spec\.rb$/,
];

const TEST_SOURCE_EXTENSIONS = /\.([cm]?[jt]sx?|py|go|rs|java|kt|rb)$/;

/**
 * Folders of inputs tests read, never tests themselves, also under a qualified name: commander's
 * `tests/fixtures-extensions/pm.js` is a program its tests spawn, and run as a test it failed.
 */
export const FIXTURE_FOLDER =
  /(^|\/)([\w.]+[-_])?(fixtures?|__fixtures__|__snapshots__|testdata)([-_][\w.-]+)?\//;

/** Names that say a file holds tests, whatever folder it is in. */
const EXPLICIT_TEST_NAME =
  /\.(test|spec|e2e)\.[cm]?[jt]sx?$|(^|\/)test_[^/]+\.py$|_test\.(py|go)$|(Test|Tests|IT)\.(java|kt)$|_spec\.rb$/;

/**
 * Support code inside test folders: helpers, fixtures, mocks and set-up files, which ava, mocha,
 * jest and pytest load but do not run as tests (ava skips `_`-prefixed files and helpers/ folders).
 */
const TEST_SUPPORT =
  /(^|\/)(fixtures?|__fixtures__|__snapshots__|__mocks__|mocks?|testdata|helpers?|support|utils?|test-utils|setup)\/|(^|\/)(_[^/]*|(setup|teardown|global-setup|global-teardown|helpers?|utils?|test-utils|mocks?|conftest|__init__|jest\.setup|vitest\.setup)(\.[^/]*)?)$/;

/**
 * Verdicts by path, kept across calls: repo_map and the test tools classify every file of the
 * tree on each call, and at 50,000 files the regular expressions cost about 250 ms a map. A path
 * always gets the same verdict, so the only bound needed is on memory.
 *
 * `quick` settles most paths without the expressions: each expression matches only paths holding
 * one of a few words (`test`, `fixture`, `bench`…), and a path holding none of them gets its
 * verdict from one expression of those words. In a new process the cache starts empty, and the
 * first map of a 50,000-file tree spent about 130 ms filling four of them. A short list of words is
 * checked faster than the cache is read, so its verdicts are not kept; a long one's are
 * (`keepQuickVerdicts`), since a map asks about each file several times.
 */
export class PathVerdicts {
  static readonly LIMIT = 200_000;
  readonly #verdicts = new Map<string, boolean>();
  readonly #decide: (relative: string) => boolean;
  readonly #quick: (relative: string) => boolean | undefined;
  readonly #keepQuickVerdicts: boolean;

  constructor(
    decide: (relative: string) => boolean,
    options: { quick?: (relative: string) => boolean | undefined; keepQuickVerdicts?: boolean } = {},
  ) {
    this.#decide = decide;
    this.#quick = options.quick ?? (() => undefined);
    this.#keepQuickVerdicts = options.keepQuickVerdicts ?? false;
  }

  get(relative: string): boolean {
    let verdict: boolean | undefined;
    if (!this.#keepQuickVerdicts) {
      verdict = this.#quick(relative);
      if (verdict !== undefined) return verdict;
    }
    verdict = this.#verdicts.get(relative);
    if (verdict === undefined) {
      verdict = (this.#keepQuickVerdicts ? this.#quick(relative) : undefined) ?? this.#decide(relative);
      if (this.#verdicts.size >= PathVerdicts.LIMIT) this.#verdicts.clear();
      this.#verdicts.set(relative, verdict);
    }
    return verdict;
  }

  /** The verdict without the quick check (uncached): tests hold {@link get} to it. */
  decideInFull(relative: string): boolean {
    return this.#decide(relative);
  }
}

/**
 * A word every test pattern below needs (`test`, `spec`, `e2e`, `Test`, or the `IT.` of a JVM's
 * `FooIT.java`): a path holding none is no test and no test folder's file.
 */
const TEST_WORD = /test|spec|e2e|Test|IT\./;

/** TEST_WORD or the other words of TEST_CODE_FOLDER: fixtures, snapshots, mocks. */
export const TEST_CODE_WORD = /test|spec|e2e|Test|IT\.|fixture|__snapshots__|__mocks__/;

/** `false` for a path that names no test (see TEST_WORD), else left to the expressions. */
function noTestNamed(relative: string): false | undefined {
  return TEST_WORD.test(relative) ? undefined : false;
}

export const testFileVerdicts = new PathVerdicts(holdsTests, { quick: noTestNamed });
export const testSupportVerdicts = new PathVerdicts(
  (relative) =>
    TEST_SOURCE_EXTENSIONS.test(relative) &&
    !isTestFile(relative) &&
    /(^|\/)(test|tests|__tests__|spec|specs|e2e)\//.test(relative),
  { quick: noTestNamed },
);

/** A word every path FIXTURE_FOLDER matches holds. */
const FIXTURE_WORD = /fixture|__snapshots__|testdata/;

/** True for a file in a folder of test inputs (see FIXTURE_FOLDER). */
export function isInFixtureFolder(relative: string): boolean {
  // Asked for every file of a map's refresh, and not cached (see PathVerdicts' quick check): a
  // path without the words is ruled out without the expression (50,000 paths: a few ms, against
  // 25 ms through the expression).
  return FIXTURE_WORD.test(relative) && FIXTURE_FOLDER.test(relative);
}

/** True for files that hold tests, by the common naming conventions of each ecosystem. */
export function isTestFile(relative: string): boolean {
  return testFileVerdicts.get(relative);
}

function holdsTests(relative: string): boolean {
  if (!TEST_SOURCE_EXTENSIONS.test(relative)) return false;
  // A declaration file (test/types/ava.d.ts) holds types for the tests, never a test.
  if (/\.d\.[cm]?ts$/.test(relative)) return false;
  if (FIXTURE_FOLDER.test(relative)) return false;
  if (EXPLICIT_TEST_NAME.test(relative)) return true;
  // pytest and unittest collect test_*.py and *_test.py only; other modules in tests/ (typing
  // checks, helpers) are not tests. Go likewise runs only *_test.go.
  if (/\.(py|go)$/.test(relative)) return false;
  if (TEST_SUPPORT.test(relative)) return false;
  return TEST_PATTERNS.some((pattern) => pattern.test(relative));
}

/**
 * Folders whose code the application never runs: tests (also under a qualified name, as hono's
 * `runtime-tests/` and many `integration-tests/`), their support files (also in a folder of their
 * own beside the tests, as koa's `test-helpers/`, which ranked above its lib/ in the map), fixtures
 * (inputs a test reads, often thousands of them in a parser or compiler repository), snapshots and
 * mocks.
 */
const TEST_CODE_FOLDER =
  /(^|\/)([\w.]+-)?(test|tests|__tests__|spec|specs|e2e|fixtures?|__fixtures__|__snapshots__|__mocks__|testdata)\/|(^|\/)tests?[-_]?(helpers?|utils?|utilities|support|setup|common)\//;

export const testCodeVerdicts = new PathVerdicts(
  (relative) => TEST_CODE_FOLDER.test(relative) || holdsTests(relative),
  { quick: (relative) => (TEST_CODE_WORD.test(relative) ? undefined : false) },
);

/**
 * True for tests and everything that only serves them (support files, fixtures, snapshots, mocks),
 * wherever they are. The repository map ranks and lists the application's code, not these: in a
 * compiler's repository thousands of fixture inputs define `Object` or `length`, and taken as
 * definitions they drew every file that uses those names.
 */
export function isTestCode(relative: string): boolean {
  return testCodeVerdicts.get(relative);
}

/** True for support files of a test folder (helpers, set-up, mocks): neither source nor tests. */
export function isTestSupportFile(relative: string): boolean {
  return testSupportVerdicts.get(relative);
}

/** The name a source file and its tests share: `math` for src/math.ts and test/math.test.ts. */
export function testStem(relative: string): string {
  let name = path.posix.basename(relative).replace(/\.[^.]+$/, '');
  name = name
    .replace(/\.(test|spec|e2e)$/, '')
    .replace(/^test_/, '')
    .replace(/_(test|spec)$/, '')
    .replace(/(Test|Tests|IT)$/, '');
  // A file named for its role, not its subject (`index.ts`, date-fns' `src/addDays/test.ts`),
  // takes its folder's name.
  if (['index', '__init__', 'test', 'spec', ''].includes(name))
    name = path.posix.basename(path.posix.dirname(relative));
  return name.toLowerCase();
}
