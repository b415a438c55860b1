/** Pass/fail counts read from a test runner's summary. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Runner whose summary format matched. */
  format: string;
}

function number(match: RegExpMatchArray | null | undefined, group = 1): number {
  return match?.[group] === undefined ? 0 : Number(match[group]);
}

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Reads pass/fail counts from the summary of vitest, jest, mocha, node:test (spec and TAP),
 * pytest, go test and cargo test. Returns undefined when no known summary is present.
 */
export function parseTestCounts(output: string): TestCounts | undefined {
  const text = output.replace(ANSI, '');
  // vitest: "Tests  3 passed | 1 failed (4)"
  const vitest = /^\s*Tests\s+(.+?)\s*\(\d+\)\s*$/m.exec(text);
  if (vitest !== null && /passed|failed|skipped/.test(vitest[1]!)) {
    return {
      passed: number(/(\d+) passed/.exec(vitest[1]!)),
      failed: number(/(\d+) failed/.exec(vitest[1]!)),
      skipped: number(/(\d+) (?:skipped|todo)/.exec(vitest[1]!)),
      format: 'vitest',
    };
  }
  // jest: "Tests:       1 failed, 3 passed, 4 total"
  const jest = /^Tests:\s+(.+total)\s*$/m.exec(text);
  if (jest !== null) {
    return {
      passed: number(/(\d+) passed/.exec(jest[1]!)),
      failed: number(/(\d+) failed/.exec(jest[1]!)),
      skipped: number(/(\d+) skipped/.exec(jest[1]!)),
      format: 'jest',
    };
  }
  // node:test: "# pass 3" / "ℹ pass 3"
  const nodePass = /^[#ℹ]\s*pass (\d+)\s*$/m.exec(text);
  if (nodePass !== null) {
    return {
      passed: number(nodePass),
      failed: number(/^[#ℹ]\s*fail (\d+)\s*$/m.exec(text)),
      skipped: number(/^[#ℹ]\s*skipped (\d+)\s*$/m.exec(text)) + number(/^[#ℹ]\s*todo (\d+)\s*$/m.exec(text)),
      format: 'node:test',
    };
  }
  // mocha: "3 passing (20ms)", "1 failing", "2 pending"
  const mocha = /^\s*(\d+) passing\b/m.exec(text);
  if (mocha !== null) {
    return {
      passed: number(mocha),
      failed: number(/^\s*(\d+) failing\b/m.exec(text)),
      skipped: number(/^\s*(\d+) pending\b/m.exec(text)),
      format: 'mocha',
    };
  }
  // pytest: "==== 1 failed, 3 passed, 1 skipped in 0.12s ===="
  const pytest = /^=+ (.*(?:passed|failed|error).*) in [\d.]+s.*=+\s*$/m.exec(text);
  if (pytest !== null) {
    return {
      passed: number(/(\d+) passed/.exec(pytest[1]!)),
      failed: number(/(\d+) failed/.exec(pytest[1]!)) + number(/(\d+) errors?/.exec(pytest[1]!)),
      skipped: number(/(\d+) skipped/.exec(pytest[1]!)),
      format: 'pytest',
    };
  }
  // cargo: "test result: ok. 3 passed; 0 failed; 1 ignored"
  const cargo = [...text.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)];
  if (cargo.length > 0) {
    return {
      passed: cargo.reduce((sum, match) => sum + Number(match[1]), 0),
      failed: cargo.reduce((sum, match) => sum + Number(match[2]), 0),
      skipped: cargo.reduce((sum, match) => sum + Number(match[3]), 0),
      format: 'cargo',
    };
  }
  // go test -v: "--- PASS: TestX", "--- FAIL: TestY"
  const goPassed = text.match(/^\s*--- PASS:/gm)?.length ?? 0;
  const goFailed = text.match(/^\s*--- FAIL:/gm)?.length ?? 0;
  if (goPassed + goFailed > 0) {
    return {
      passed: goPassed,
      failed: goFailed,
      skipped: text.match(/^\s*--- SKIP:/gm)?.length ?? 0,
      format: 'go',
    };
  }
  return undefined;
}
