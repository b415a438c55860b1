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

/** True for files that hold tests, by the common naming conventions of each ecosystem. */
export function isTestFile(relative: string): boolean {
  if (!TEST_SOURCE_EXTENSIONS.test(relative)) return false;
  if (/(^|\/)(fixtures?|__fixtures__|__snapshots__|testdata)\//.test(relative)) return false;
  return TEST_PATTERNS.some((pattern) => pattern.test(relative));
}

/** The name a source file and its tests share: `math` for src/math.ts and test/math.test.ts. */
export function testStem(relative: string): string {
  let name = path.posix.basename(relative).replace(/\.[^.]+$/, '');
  name = name
    .replace(/\.(test|spec|e2e)$/, '')
    .replace(/^test_/, '')
    .replace(/_(test|spec)$/, '')
    .replace(/(Test|Tests|IT)$/, '');
  if (name === 'index' || name === '__init__') name = path.posix.basename(path.posix.dirname(relative));
  return name.toLowerCase();
}
