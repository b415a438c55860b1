// Prints the closing line `N passed, N failed` from one or more vitest JSON reports (one per Node
// line in CI) and exits non-zero when any test failed, any suite failed to load, or a report is
// missing. Each report's own counts come first, in a form that is not mistaken for the total;
// then every failed test by file and name with the start of its message, because CI keeps only the
// tail of its output and a failure that cannot be named cannot be mended.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const reportPaths = process.argv.length > 2 ? process.argv.slice(2) : ['reports/vitest.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
let success = true;
const failureLines = [];
for (const reportPath of reportPaths) {
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8'));
  } catch (error) {
    console.error(`test-summary: cannot read ${reportPath}: ${error.message}`);
    failed += 1;
    success = false;
    continue;
  }
  const failedTests = report.numFailedTests ?? 0;
  // A suite that failed to load has no failed test of its own; count it as one failure.
  const failedSuites = (report.testResults ?? []).filter(
    (suite) =>
      suite.status === 'failed' && (suite.assertionResults ?? []).every((test) => test.status !== 'failed'),
  ).length;
  for (const suite of report.testResults ?? []) {
    const file = path.relative(process.cwd(), suite.name ?? '');
    const failedInSuite = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (suite.status === 'failed' && failedInSuite.length === 0) {
      failureLines.push(`FAILED ${path.basename(reportPath, '.json')} ${file}: ${firstLines(suite.message)}`);
    }
    for (const test of failedInSuite) {
      failureLines.push(
        `FAILED ${path.basename(reportPath, '.json')} ${file} > ${test.fullName}: ${firstLines((test.failureMessages ?? []).join('\n'))}`,
      );
    }
  }
  const reportPassed = report.numPassedTests ?? 0;
  const reportFailed = failedTests + failedSuites;
  const reportSkipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  if (reportPaths.length > 1) {
    console.log(
      `${path.basename(reportPath, '.json')}: ${reportPassed} tests passed / ${reportFailed} failed / ${reportSkipped} skipped`,
    );
  }
  passed += reportPassed;
  failed += reportFailed;
  skipped += reportSkipped;
  if (report.success === false) success = false;
}
for (const line of failureLines) console.log(line);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || !success ? 1 : 0);

/** The first three non-empty lines of a failure message, on one line, without terminal colours. */
function firstLines(message) {
  return String(message ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' | ')
    .slice(0, 600);
}
