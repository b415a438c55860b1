/**
 * Readers of test runners' machine-readable reports. Each returns the counts the runner itself
 * reported (never counts guessed from free text), the names of failed tests, and the report format,
 * or undefined when the report is missing or unreadable, so callers can say no count was read.
 */

/** One failed test as its runner named it. */
export interface FailedTest {
  name: string;
  /** First lines of the failure message, when the report has one. */
  message?: string;
  file?: string;
}

/** Counts read from a runner's report. */
export interface TestReport {
  passed: number;
  failed: number;
  skipped: number;
  /** Machine-readable format it was read from (jest-json, mocha-json, tap, junit-xml, go-test-json) or the runner's own summary (unittest-summary, cargo-summary). */
  format: string;
  failures: FailedTest[];
}

/** Formats run_tests knows how to read. */
export type ReportFormat =
  | 'jest-json'
  | 'mocha-json'
  | 'tap'
  | 'junit-xml'
  | 'go-test-json'
  | 'unittest-summary'
  | 'cargo-summary';

const MESSAGE_CHARACTERS = 600;

function shortMessage(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '').trim();
  return plain.length > MESSAGE_CHARACTERS ? `${plain.slice(0, MESSAGE_CHARACTERS)}…` : plain;
}

/** Parses the JSON object that starts at the first line beginning with `marker` and ends at the text's last `}`. */
function embeddedJson(text: string, marker: RegExp): Record<string, unknown> | undefined {
  const start = text.search(marker);
  if (start < 0) return undefined;
  const end = text.lastIndexOf('}');
  if (end < start) return undefined;
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * jest `--json` and vitest `--reporter=json` (the same shape). Both report the tests a `-t` name
 * filter left out as skipped ("pending"), like `test.skip`; with `testName`, only the skipped tests
 * the filter selects (their full name contains it) count as skipped.
 */
export function readJestJson(text: string, testName?: string): TestReport | undefined {
  const json = embeddedJson(text, /^\{\s*"num(Failed|Passed|Total)Test/m);
  if (json === undefined || typeof json.numTotalTests !== 'number') return undefined;
  const failures: FailedTest[] = [];
  let brokenFiles = 0;
  for (const file of (json.testResults ?? []) as Record<string, unknown>[]) {
    const assertions = (file.assertionResults ?? []) as Record<string, unknown>[];
    for (const assertion of assertions) {
      if (assertion.status !== 'failed') continue;
      const message = shortMessage(((assertion.failureMessages ?? []) as unknown[]).join('\n'));
      failures.push({
        name: String(assertion.fullName ?? assertion.title ?? '(unnamed)'),
        ...(message === undefined ? {} : { message }),
        ...(typeof file.name === 'string' ? { file: file.name } : {}),
      });
    }
    // A file that failed to load has no test results but a message: it is a failure too.
    if (file.status === 'failed' && assertions.every((assertion) => assertion.status !== 'failed')) {
      brokenFiles++;
      const message = shortMessage(file.message);
      failures.push({
        name: `${String(file.name ?? 'a test file')} (failed to run)`,
        ...(message === undefined ? {} : { message }),
      });
    }
  }
  let skipped = count(json.numPendingTests) + count(json.numTodoTests);
  if (testName !== undefined) {
    // jest matches -t case-insensitively against the full name (describe titles and the test's).
    const wanted = testName.toLowerCase();
    skipped = 0;
    for (const file of (json.testResults ?? []) as Record<string, unknown>[]) {
      for (const assertion of (file.assertionResults ?? []) as Record<string, unknown>[]) {
        const status = String(assertion.status);
        if (status === 'passed' || status === 'failed') continue;
        if (
          String(assertion.fullName ?? assertion.title ?? '')
            .toLowerCase()
            .includes(wanted)
        )
          skipped++;
      }
    }
  }
  return {
    passed: count(json.numPassedTests),
    failed: count(json.numFailedTests) + brokenFiles,
    skipped,
    format: 'jest-json',
    failures,
  };
}

/** mocha `--reporter json`. */
export function readMochaJson(text: string): TestReport | undefined {
  const json = embeddedJson(text, /^\{\s*"stats"\s*:/m);
  const stats = json?.stats as Record<string, unknown> | undefined;
  if (json === undefined || stats === undefined || typeof stats.passes !== 'number') return undefined;
  const failures = ((json.failures ?? []) as Record<string, unknown>[]).map((failure) => {
    const message = shortMessage((failure.err as Record<string, unknown> | undefined)?.message);
    return {
      name: String(failure.fullTitle ?? failure.title ?? '(unnamed)'),
      ...(message === undefined ? {} : { message }),
      ...(typeof failure.file === 'string' ? { file: failure.file } : {}),
    };
  });
  return {
    passed: count(stats.passes),
    failed: count(stats.failures),
    skipped: count(stats.pending),
    format: 'mocha-json',
    failures,
  };
}

/**
 * node-tap (18 and later) runs each test file as a top-level subtest, its tests one level in and
 * their assertions below, and closes with `# { total: 5, pass: 3, fail: 1, skip: 1 }`, counting
 * tests. A failure is named by its test (the first level in) with the message of the assertion
 * that failed inside it; a file that failed without a failing test (it crashed) is named itself.
 */
function readNodeTapRun(lines: readonly string[]): TestReport | undefined {
  const trailer = lines
    .map((line) => /^#\s*\{\s*total:\s*\d+(.*)\}\s*$/.exec(line))
    .findLast((match) => match !== null);
  if (trailer === undefined || trailer === null) return undefined;
  const count = (name: string) => Number(new RegExp(`\\b${name}:\\s*(\\d+)`).exec(trailer[0])?.[1] ?? 0);
  const failures: FailedTest[] = [];
  let assertionMessage: string | undefined;
  let testFailuresInFile = 0;
  for (let index = 0; index < lines.length; index++) {
    const point = /^( *)not ok\b\s*\d*\s*(?:-\s*)?(.*?)(?:\s+#\s*time=[\d.]+m?s)?\s*$/.exec(lines[index]!);
    if (point === null) continue;
    const depth = point[1]!.length / 4;
    if (depth >= 2) {
      if (assertionMessage === undefined) {
        const block: string[] = [];
        for (let next = index + 1; next < lines.length; next++) {
          const entry = lines[next]!.trim();
          if (entry === '---') continue;
          if (entry === '...' || /^(not )?ok\b/.test(entry)) break;
          // The comparison and the diff's changed lines; not the source excerpt or the stack.
          const raw = lines[next]!;
          const isDiffLine = /^\s*[-+](?![-+]{2})/.test(raw) && /^ +[-+]/.test(raw);
          if (!/^(compare|found|wanted|message|error):/.test(entry) && !isDiffLine) continue;
          block.push(entry);
          if (block.length >= 8) break;
        }
        assertionMessage = shortMessage([point[2], ...block].join('\n'));
      }
    } else if (depth === 1) {
      failures.push({
        name: point[2]!,
        ...(assertionMessage === undefined ? {} : { message: assertionMessage }),
      });
      assertionMessage = undefined;
      testFailuresInFile++;
    } else {
      if (testFailuresInFile === 0) failures.push({ name: point[2]! });
      testFailuresInFile = 0;
      assertionMessage = undefined;
    }
  }
  // --grep reports the tests it filtered out as skipped ("# SKIP filter: /…/"); they were not selected.
  const filtered = lines.filter((line) => /^ {4}ok\b.*#\s*SKIP filter:/.test(line)).length;
  return {
    passed: count('pass'),
    failed: count('fail'),
    skipped: Math.max(0, count('skip') - filtered) + count('todo'),
    format: 'tap',
    failures,
  };
}

/**
 * TAP 13/14 as ava `--tap`, `node --test --test-reporter=tap` and node-tap print it. The runner's
 * own trailer (`# pass 6`, `# fail 1`, `# skip 1`) wins; without one, the top-level test points
 * are counted with their SKIP/TODO directives.
 */
export function readTap(text: string): TestReport | undefined {
  const lines = text.split(/\r?\n/);
  if (!lines.some((line) => /^TAP version \d+/.test(line) || /^(not )?ok \d+/.test(line))) return undefined;
  const nodeTap = readNodeTapRun(lines);
  if (nodeTap !== undefined) return nodeTap;
  const failures: FailedTest[] = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const point = /^(\s*)(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$/i.exec(line);
    if (point === null) continue;
    const topLevel = point[1] === '';
    const directive = point[4]?.toUpperCase();
    if (point[2] === 'not ok' && directive === undefined) {
      // Node's reporter nests subtests and repeats a failed parent; list only the innermost.
      const name = point[3]!.trim();
      const block: string[] = [];
      for (let next = index + 1; next < lines.length && /^\s+(---|\.\.\.|\S)/.test(lines[next]!); next++) {
        if (/^\s*(not )?ok\b/.test(lines[next]!)) break;
        block.push(lines[next]!.trim());
      }
      // The YAML diagnostic up to its stack trace, without empty messages.
      const atIndex = block.findIndex((entry) => /^(at|stack):/.test(entry));
      const message = shortMessage(
        block
          .slice(0, atIndex < 0 ? block.length : atIndex)
          .filter((entry) => entry !== '---' && entry !== '...' && !/^(message|error):\s*''$/.test(entry))
          .join('\n'),
      );
      if (
        !/^(subtestsFailed|'\d+ subtests? failed')/.test(message ?? '') &&
        !block.some((entry) => /^failureType:\s*'subtestsFailed'/.test(entry))
      )
        failures.push({ name, ...(message === undefined ? {} : { message }) });
    }
    if (!topLevel) continue;
    if (directive !== undefined) skipped++;
    else if (point[2] === 'ok') passed++;
    else failed++;
  }
  const trailer = (name: string) => {
    const match = new RegExp(`^#\\s*${name}\\s+(\\d+)\\s*$`, 'm').exec(text);
    return match === null ? undefined : Number(match[1]);
  };
  const trailerPass = trailer('pass');
  if (trailerPass !== undefined) {
    return {
      passed: trailerPass,
      // node:test counts cancelled tests (a timeout, a crashed file) apart from failed ones.
      failed: (trailer('fail') ?? 0) + (trailer('cancelled') ?? 0),
      skipped: (trailer('skip') ?? trailer('skipped') ?? 0) + (trailer('todo') ?? 0),
      format: 'tap',
      failures,
    };
  }
  if (passed + failed + skipped === 0) return undefined;
  return { passed, failed, skipped, format: 'tap', failures };
}

function xmlAttribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

function xmlText(value: string): string {
  return value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');
}

/** JUnit XML as pytest `--junitxml` (and many other runners) write it. */
export function readJunitXml(text: string): TestReport | undefined {
  const start = text.indexOf('<testsuite');
  if (start < 0) return undefined;
  const xml = text.slice(start);
  let tests = 0;
  let failed = 0;
  let skipped = 0;
  let suites = 0;
  for (const match of xml.matchAll(/<testsuite(?=[\s>])[^>]*>/g)) {
    suites++;
    tests += Number(xmlAttribute(match[0], 'tests') ?? 0);
    failed += Number(xmlAttribute(match[0], 'failures') ?? 0) + Number(xmlAttribute(match[0], 'errors') ?? 0);
    skipped += Number(xmlAttribute(match[0], 'skipped') ?? xmlAttribute(match[0], 'disabled') ?? 0);
  }
  if (suites === 0) return undefined;
  const failures: FailedTest[] = [];
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = match[2] ?? '';
    const problem = /<(failure|error)\b([^>]*)>/.exec(body);
    if (problem === null) continue;
    const className = xmlAttribute(match[1]!, 'classname');
    const name = xmlText(xmlAttribute(match[1]!, 'name') ?? '(unnamed)');
    const message = shortMessage(xmlText(xmlAttribute(problem[2]!, 'message') ?? ''));
    failures.push({
      name: className === undefined || className === '' ? name : `${xmlText(className)}::${name}`,
      ...(message === undefined ? {} : { message }),
    });
  }
  return { passed: tests - failed - skipped, failed, skipped, format: 'junit-xml', failures };
}

/** `go test -json` (test2json events); subtests count as tests, as gotestsum counts them. */
export function readGoTestJson(text: string): TestReport | undefined {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let events = 0;
  const failures: FailedTest[] = [];
  const output = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    events++;
    const test = typeof event.Test === 'string' ? event.Test : undefined;
    if (test === undefined) continue;
    const key = `${String(event.Package ?? '')} ${test}`;
    if (event.Action === 'output') {
      const lines = output.get(key) ?? [];
      if (lines.length < 20) lines.push(String(event.Output ?? ''));
      output.set(key, lines);
    } else if (event.Action === 'pass') passed++;
    else if (event.Action === 'skip') skipped++;
    else if (event.Action === 'fail') {
      failed++;
      const message = shortMessage(
        (output.get(key) ?? []).filter((entry) => !/^\s*(=== RUN|--- FAIL)/.test(entry)).join(''),
      );
      failures.push({
        name: `${String(event.Package ?? '')}.${test}`,
        ...(message === undefined ? {} : { message }),
      });
    }
  }
  if (events === 0) return undefined;
  return { passed, failed, skipped, format: 'go-test-json', failures };
}

/** unittest's own closing lines: `Ran 5 tests in 0.01s` then `OK (skipped=1)` or `FAILED (failures=1, errors=1)`. */
export function readUnittestSummary(text: string): TestReport | undefined {
  const ran = /^Ran (\d+) tests? in [\d.]+s\s*$/m.exec(text);
  if (ran === null) return undefined;
  const verdict = /^(OK|FAILED)(?: \(([^)]*)\))?\s*$/m.exec(text.slice(ran.index));
  if (verdict === null) return undefined;
  const field = (name: string) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(verdict[2] ?? '')?.[1] ?? 0);
  const failed = field('failures') + field('errors') + field('unexpected successes');
  const skipped = field('skipped');
  // Python 3.11+ prints the full id in the parentheses, older versions only the class.
  const failures = [...text.matchAll(/^(?:FAIL|ERROR): (\S+) \(([^)]+)\)/gm)].map((match) => ({
    name: match[2]!.endsWith(`.${match[1]}`) ? match[2]! : `${match[2]}.${match[1]}`,
  }));
  return { passed: Number(ran[1]) - failed - skipped, failed, skipped, format: 'unittest-summary', failures };
}

/** cargo test's `test result:` lines, one per test binary, summed. */
export function readCargoSummary(text: string): TestReport | undefined {
  const results = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)];
  if (results.length === 0) return undefined;
  const failures = [...text.matchAll(/^test (\S+) \.\.\. FAILED$/gm)].map((match) => ({ name: match[1]! }));
  return {
    passed: results.reduce((sum, match) => sum + Number(match[1]), 0),
    failed: results.reduce((sum, match) => sum + Number(match[2]), 0),
    skipped: results.reduce((sum, match) => sum + Number(match[3]), 0),
    format: 'cargo-summary',
    failures,
  };
}

/** Reads a report of the given format from a run's stdout and stderr. */
export function readTestReport(
  format: ReportFormat,
  output: { stdout: string; stderr: string },
  testName?: string,
): TestReport | undefined {
  switch (format) {
    case 'jest-json':
      return readJestJson(output.stdout, testName);
    case 'mocha-json':
      return readMochaJson(output.stdout);
    case 'tap':
      return readTap(output.stdout);
    case 'junit-xml':
      return readJunitXml(output.stderr);
    case 'go-test-json':
      return readGoTestJson(output.stdout);
    case 'unittest-summary':
      return readUnittestSummary(output.stderr);
    case 'cargo-summary':
      return readCargoSummary(output.stdout);
  }
}
