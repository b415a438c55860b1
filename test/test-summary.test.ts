import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// CI keeps only the tail of what it printed. The summary's last lines must therefore name every
// failed test (and every suite that failed to load), not only count them.

const script = fileURLToPath(new URL('../scripts/test-summary.mjs', import.meta.url));
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function summarise(reports: Record<string, unknown>): { status: number; output: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'test-summary-'));
  folders.push(folder);
  const files = Object.entries(reports).map(([name, report]) => {
    const file = path.join(folder, `${name}.json`);
    writeFileSync(file, JSON.stringify(report));
    return file;
  });
  try {
    return { status: 0, output: execFileSync(process.execPath, [script, ...files], { encoding: 'utf8' }) };
  } catch (error) {
    const failure = error as { status: number; stdout: string };
    return { status: failure.status, output: failure.stdout };
  }
}

describe('test-summary', () => {
  it('names each failed test and suite with the start of its message, before the closing line', () => {
    const { status, output } = summarise({
      'vitest-node20': {
        numPassedTests: 3,
        numFailedTests: 1,
        success: false,
        testResults: [
          {
            name: path.join(process.cwd(), 'packages/a/test/one.test.ts'),
            status: 'failed',
            assertionResults: [
              { status: 'passed', fullName: 'fine' },
              {
                status: 'failed',
                fullName: 'undo restores the tree',
                failureMessages: [
                  '\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at one\n\n    at two\n    at three',
                ],
              },
            ],
          },
          {
            name: path.join(process.cwd(), 'packages/b/test/two.test.ts'),
            status: 'failed',
            message: 'Cannot find module x',
            assertionResults: [],
          },
        ],
      },
      'vitest-node22': { numPassedTests: 4, numFailedTests: 0, success: true, testResults: [] },
    });
    expect(status).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines.at(-1)).toBe('7 passed, 2 failed');
    expect(lines).toContain(
      'FAILED vitest-node20 packages/a/test/one.test.ts > undo restores the tree: AssertionError: expected 1 to be 2 | at one | at two',
    );
    expect(lines).toContain('FAILED vitest-node20 packages/b/test/two.test.ts: Cannot find module x');
  });

  it('prints only the counts when nothing failed', () => {
    const { status, output } = summarise({
      only: { numPassedTests: 2, numFailedTests: 0, numPendingTests: 1, success: true, testResults: [] },
    });
    expect(status).toBe(0);
    expect(output).toBe('2 passed, 0 failed, 1 skipped\n');
  });
});
