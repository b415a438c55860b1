import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CommandLineError, parseCommandLine } from '../src/index.js';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('../', import.meta.url));

describe('parseCommandLine', () => {
  it('reads every option', () => {
    expect(
      parseCommandLine([
        '--configuration',
        'U',
        '--workspace',
        '/srv/w',
        '--permission-mode',
        'ask',
        '--permissions-disabled',
        '--host-execution',
        'deny',
        '--execution-timeout-minutes',
        '5',
        '--chromium',
        '/opt/chromium',
        '--permit-url',
        'https://docs.example.com',
        '--permit-url',
        'https://api.example.com/v1',
        '--no-dispatch-per-call',
        '--readable-path',
        '/opt/toolchains/../toolchains',
      ]),
    ).toEqual({
      configuration: 'U',
      workspace: '/srv/w',
      permissionMode: 'ask',
      permissionsEnabled: false,
      hostExecution: 'deny',
      executionTimeoutMinutes: 5,
      chromiumPath: '/opt/chromium',
      permittedUrls: ['https://docs.example.com', 'https://api.example.com/v1'],
      readablePaths: ['/opt/toolchains'],
      dispatchPerCall: false,
      languageServers: [],
      logLevel: 'info',
    });
    // Without --workspace the client's first root is the workspace (see mcp-server.test.ts).
    expect(parseCommandLine(['--configuration', 'W'])).not.toHaveProperty('workspace');
    expect(parseCommandLine(['-c', 'W', '--log-level', 'debug'])).toMatchObject({ logLevel: 'debug' });
    expect(parseCommandLine(['--configuration', 'R', '--workspace', '.'])).toMatchObject({
      permissionMode: 'auto',
      permissionsEnabled: true,
      dispatchPerCall: false,
    });
    expect(parseCommandLine(['--configuration', 'U', '--workspace', '.'])).toMatchObject({
      dispatchPerCall: true,
    });
    expect(
      parseCommandLine(['--configuration', 'W', '--workspace', '.', '--dispatch-per-call']),
    ).toMatchObject({ dispatchPerCall: true });
    expect(parseCommandLine(['--help'])).toBe('help');
  });

  it.each([
    [[], /--configuration is required/],
    [['--configuration', 'X', '--workspace', '.'], /W, U or R/],
    [['--configuration', 'W', '--workspace', ''], /--workspace needs a folder/],
    [
      ['--configuration', 'W', '--log-level', 'loud'],
      /debug, info, notice, warning, error, critical, alert, emergency, off/,
    ],
    [
      ['--configuration', 'W', '--workspace', '.', '--permission-mode', 'yolo'],
      /ask, auto, plan, full-access/,
    ],
    [['--configuration', 'W', '--workspace', '.', '--host-execution', 'maybe'], /allow, ask or deny/],
    [['--configuration', 'W', '--workspace', '.', '--execution-timeout-minutes', '0'], /1 to 1440/],
    [['--configuration', 'W', '--workspace', '.', '--bogus'], /bogus/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it('the bin exits with status 2 and usage on a bad command line', async () => {
    const failure = await run(
      process.execPath,
      ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/bin.ts'],
      {
        cwd: packageRoot,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('Usage: assistant-kit-mcp');
  });
});

describe('--version', () => {
  it('is recognised, and the bin prints the package version on stdout', async () => {
    expect(parseCommandLine(['--version'])).toBe('version');
    expect(parseCommandLine(['-v'])).toBe('version');
    const { stdout } = await run(
      process.execPath,
      ['--conditions=@assistant-kit/source', '--import', 'tsx', 'src/bin.ts', '--version'],
      { cwd: packageRoot },
    );
    const { version } = JSON.parse(readFileSync(`${packageRoot}/package.json`, 'utf8')) as {
      version: string;
    };
    expect(stdout).toBe(`${version}\n`);
  });
});
