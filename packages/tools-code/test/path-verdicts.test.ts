import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FIXTURE_FOLDER,
  isInFixtureFolder,
  PathVerdicts,
  testCodeVerdicts,
  testFileVerdicts,
  testSupportVerdicts,
} from '../src/project/test-files.js';
import { applicationVerdicts } from '../src/repo-map/application-code.js';
import { seededRandom } from './helpers/seeded-random.js';

const VERDICTS = {
  'test files': testFileVerdicts,
  'test support files': testSupportVerdicts,
  'test code': testCodeVerdicts,
  'application code': applicationVerdicts,
};

/**
 * Name parts that hold, border or almost hold every word the expressions look for, in the cases
 * and with the separators real trees use (`FooIT.java`, `test_x.py`, `.github/`, `src/main/`).
 */
const PARTS = (
  'src lib main app core pkg packages a x index util utils helper helpers support setup common ' +
  'conftest __init__ test tests Test Tests TEST __tests__ testing testdata contest latest spec ' +
  'specs inspect e2e IT UNIT fixture fixtures __fixtures__ prefixtures __snapshots__ __mocks__ ' +
  'mock mocks vendor vendored third_party third-party bower_components bench benchmarks perf ' +
  'performance perf-tests __perf_tests__ example examples sample demo doc docs docs_src ' +
  'documentation _site dist distance build .github .yarn releases .pnp .hidden gulpfile Gruntfile ' +
  'webpack karma teardown global-setup jest vitest runtime-tests test-utils test_helpers _private ' +
  'min config conf'
).split(' ');
const JOINS = ['', '.', '-', '_'];
const EXTENSIONS = [
  '',
  ...'.ts .tsx .js .mjs .cjs .d.ts .py .go .rs .java .kt .rb .json .md'.split(' '),
  ...'.min.js .config.ts .conf.cjs .test.ts .spec.js .e2e.ts .pnp.cjs'.split(' '),
];

function generatedPaths(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const paths: string[] = [];
  for (let index = 0; index < count; index++) {
    const folders = Array.from({ length: Math.floor(next() * 5) }, () =>
      next() < 0.3 ? `${pick(PARTS)}${pick(JOINS)}${pick(PARTS)}` : pick(PARTS),
    );
    const name = next() < 0.4 ? `${pick(PARTS)}${pick(JOINS)}${pick(PARTS)}` : pick(PARTS);
    paths.push([...folders, `${name}${pick(EXTENSIONS)}`].join('/'));
  }
  return paths;
}

describe('path verdicts', () => {
  it('settle a path by its words as the expressions do', () => {
    const paths = generatedPaths(40_000, 19);
    for (const [name, verdicts] of Object.entries(VERDICTS)) {
      const differing = paths.filter(
        (relative) => verdicts.get(relative) !== verdicts.decideInFull(relative),
      );
      expect(differing, name).toEqual([]);
      // Both answers occur, so the comparison is not between two constants.
      const yes = paths.filter((relative) => verdicts.get(relative)).length;
      expect(yes, name).toBeGreaterThan(100);
      expect(paths.length - yes, name).toBeGreaterThan(100);
    }
    // The fixture check's words likewise stand before FIXTURE_FOLDER.
    expect(paths.filter((relative) => isInFixtureFolder(relative) !== FIXTURE_FOLDER.test(relative))).toEqual(
      [],
    );
    expect(paths.filter(isInFixtureFolder).length).toBeGreaterThan(100);
  });

  it("settle this repository's own files as the expressions do", () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(500);
    for (const [name, verdicts] of Object.entries(VERDICTS))
      for (const relative of files)
        expect(verdicts.get(relative), `${name}: ${relative}`).toBe(verdicts.decideInFull(relative));
  });

  it('keep the verdicts the quick check leaves to the expressions, or all of them when asked', () => {
    for (const keepQuickVerdicts of [false, true]) {
      let decided = 0;
      let quick = 0;
      const verdicts = new PathVerdicts(
        (relative) => {
          decided++;
          return relative.endsWith('.test.ts');
        },
        {
          quick: (relative) => {
            quick++;
            return relative.includes('test') ? undefined : false;
          },
          keepQuickVerdicts,
        },
      );
      for (let round = 0; round < 2; round++) {
        expect(verdicts.get('src/app.ts')).toBe(false);
        expect(verdicts.get('src/app.test.ts')).toBe(true);
        expect(verdicts.get('src/latest.ts')).toBe(false);
      }
      // The expressions decide each path the quick check leaves open once; the quick check runs
      // on every call, or once per path when its verdicts are kept.
      expect(decided, `keepQuickVerdicts ${keepQuickVerdicts}`).toBe(2);
      expect(quick, `keepQuickVerdicts ${keepQuickVerdicts}`).toBe(keepQuickVerdicts ? 3 : 6);
    }
  });
});
