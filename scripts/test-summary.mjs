// Prints the closing line `N passed, N failed` from one or more vitest JSON reports (one per Node
// line in CI) and exits non-zero when any test failed, any suite failed to load, or a report is
// missing. Each report's own counts come first, in a form that is not mistaken for the total.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const reportPaths = process.argv.length > 2 ? process.argv.slice(2) : ['reports/vitest.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
let success = true;
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
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || !success ? 1 : 0);
