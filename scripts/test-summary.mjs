// Prints the closing line `N passed, N failed` from vitest's JSON report and exits non-zero when
// any test failed, any suite failed to load, or the report is missing.
import { readFileSync } from 'node:fs';

const reportPath = process.argv[2] ?? 'reports/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(`test-summary: cannot read ${reportPath}: ${error.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failedTests = report.numFailedTests ?? 0;
const failedSuites = (report.testResults ?? []).filter(
  (suite) =>
    suite.status === 'failed' && (suite.assertionResults ?? []).every((test) => test.status !== 'failed'),
).length;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const failed = failedTests + failedSuites;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || report.success === false ? 1 : 0);
