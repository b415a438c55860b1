import { describe, expect, it } from 'vitest';
import { offlineFailureNote, runResult } from '../src/project/test-runs.js';

// On axios, a related-tests run failed 2 of 159 tests on the sandbox's missing network
// (`getaddrinfo EAI_AGAIN no-such-domain-987654.com`, an HTTPS request timing out); the result read
// like two bugs in the code under test.
describe('a failed run that shows a network error', () => {
  it('says which failures show one, and that commands run without network', () => {
    expect(
      offlineFailureNote(
        [
          {
            name: 'DNS should handle errors',
            message: 'Error: getaddrinfo EAI_AGAIN no-such-domain-987654.com',
          },
          { name: 'parses headers', message: 'expected 1 to equal 2' },
        ],
        '',
      ),
    ).toBe(
      '1 of the 2 failed tests shows a network error (EAI_AGAIN): commands here run without network access, so it may fail for that alone.',
    );
    expect(
      offlineFailureNote(
        [
          {
            name: 'fetch',
            message: 'URLError: <urlopen error [Errno -3] Temporary failure in name resolution>',
          },
        ],
        '',
      ),
    ).toContain('The failed test shows a network error (Temporary failure in name resolution)');
    expect(offlineFailureNote([], 'dial tcp: lookup proxy.golang.org: no such host')).toContain(
      'The output shows a network error',
    );
    // spf13/cobra: go test could not download its modules.
    expect(
      offlineFailureNote(
        [],
        'go: github.com/cpuguy83/go-md2man/v2@v2.0.6: Get "https://proxy.golang.org/…": dial tcp: lookup proxy.golang.org on 10.255.255.53:53: dial udp 10.255.255.53:53: connect: network is unreachable',
      ),
    ).toContain('The output shows a network error (dial tcp: lookup proxy.golang.org)');
  });

  it('says nothing for failures of their own, or a local server that refused', () => {
    expect(
      offlineFailureNote([{ name: 'a', message: 'expected 1 to equal 2' }], 'EAI_AGAIN in the log'),
    ).toBeUndefined();
    expect(
      offlineFailureNote([{ name: 'a', message: 'connect ECONNREFUSED 127.0.0.1:3000' }], ''),
    ).toBeUndefined();
  });

  it('puts the note right after the first line of the result', async () => {
    const result = await runResult(
      {
        command_id: 'mocha',
        kind: 'test',
        argv: ['node_modules/.bin/mocha', '--reporter', 'json', 'test/http.js'],
        cwd: '.',
        env: {},
        reason: 'tests related to lib/http.js',
        format: 'mocha-json',
        runner: 'mocha',
        skippedSteps: [],
        files: ['test/http.js'],
      },
      {
        exitCode: 1,
        signal: null,
        stdout: JSON.stringify({
          stats: { passes: 1, failures: 1, pending: 0 },
          passes: [{ fullTitle: 'http parses' }],
          pending: [],
          failures: [
            { fullTitle: 'http resolves', err: { message: 'getaddrinfo ENOTFOUND api.example.com' } },
          ],
        }),
        stderr: '',
        durationMs: 120,
        timedOut: false,
        cancelled: false,
        truncated: false,
      } as never,
      60,
      undefined as never,
    );
    const lines = (result.content[0] as { text: string }).text.split('\n');
    expect(lines[0]).toMatch(/^FAILED: .*1 passed, 1 failed/);
    expect(lines[1]).toBe(
      'The failed test shows a network error (ENOTFOUND): commands here run without network access, so it may fail for that alone.',
    );
  });
});
