import { isTestCode, PathVerdicts, TEST_CODE_WORD } from '../project/test-files.js';

/**
 * Code checked in from elsewhere: yarn's own releases and plugins, vendored and third-party
 * folders, minified bundles. Their many top-level names say nothing about this project's structure
 * (babel's bundled yarn plugin ranked fourth among its files to read next).
 */
const VENDORED =
  /(^|\/)(\.yarn\/(releases|plugins|sdks|unplugged)|vendor|vendored|third[-_]party|bower_components)\/|\.min\.[cm]?js$|(^|\/)\.pnp\.[cm]?js$/;

/**
 * Code that measures, shows or tends the project rather than being it: benchmarks, examples and
 * demos, the documentation's code, and the folders of tools (`.github/`, `.husky/`, an
 * assistant's `.claude/skills/`). On zod, its benchmark files and a `.claude` script ranked among
 * the files to read next, by defining short names (`get`, `set`, `add`, `bench`) that hundreds of
 * files use as method names; on Express, six of the first eleven were examples; on FastAPI, ten
 * of its fourteen entry points were `docs_src/…/main.py`, the code of its tutorial; on immer,
 * eight of its files to read next were its `__performance_tests__/`, `perf-testing/` and the
 * generated `_site/`.
 */
const TOOLING =
  /(^|\/)(bench|benches|benchmark|benchmarks|(__)?perf(ormance)?[-_]?(tests?|testing)(__)?|examples?|samples?|demos?|docs?|docs?_src|documentation|_site)\/|(^|\/)\.[^/]+\//;

/**
 * Build output checked in (`dist/`) and the build's own configuration (`webpack.config.js`,
 * `rollup.config.mjs`, `karma.conf.cjs`, `gulpfile.js`). axios commits its bundles: four copies of
 * its library in dist/ were its first four files to read next, and its bundler configs followed.
 */
const BUILD_FILES =
  /(^|\/)dist\/|(^|\/)[^/]+\.(config|conf)\.[cm]?[jt]s$|(^|\/)(gulpfile|Gruntfile)(\.[\w-]+)?\.[cm]?[jt]s$/;

/** A JVM build's main source set: application code whatever its packages are called (`…/spec/`). */
const MAIN_SOURCE_SET = /(^|\/)src\/main\//;

/**
 * A word one of which every path that is not application code holds: VENDORED's, TOOLING's and
 * BUILD_FILES' words (`.yarn/`, a `.pnp.` file and every tool folder start a name with a dot), and
 * those of test code (TEST_CODE_WORD).
 */
const OUTSIDE_APPLICATION_WORD = new RegExp(
  `vendor|third|bower_components|\\.min\\.|bench|perf|example|sample|demo|doc|_site|dist/|\\.conf|gulpfile|Gruntfile|(^|/)\\.|${TEST_CODE_WORD.source}`,
);

// Asked for every file on every map (and in the modules section's sort): kept per path.
export const applicationVerdicts = new PathVerdicts(
  (judged) =>
    !VENDORED.test(judged) &&
    !TOOLING.test(judged) &&
    !BUILD_FILES.test(judged) &&
    (MAIN_SOURCE_SET.test(judged) || !isTestCode(judged)),
  { quick: (judged) => (OUTSIDE_APPLICATION_WORD.test(judged) ? undefined : true), keepQuickVerdicts: true },
);

/**
 * True for the project's own code: neither tests and what serves them (see isTestCode), code
 * vendored from elsewhere, nor benchmarks, tool folders, build output and build configuration. The map ranks, lists first and takes entry points and routes from
 * these files only.
 *
 * Judged below the map's `scope`: a map scoped to a folder whose name reads as test code (a
 * package called `spec` or `e2e`) tells that folder's code from its tests, as a map of the whole
 * workspace tells the workspace's.
 */
export function isApplicationCode(relative: string, scope?: string): boolean {
  return applicationVerdicts.get(scope === undefined ? relative : relative.slice(scope.length + 1));
}
