import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createEffectPolicy, sha256Hex, ToolRuntime, type Workspace } from '@assistant-kit/tool-core';
import {
  createCommandTools,
  createProcessLauncher,
  RunCommandParameters,
  RunCommandParametersReadOnly,
  WaitCommandParameters,
} from '@assistant-kit/tools-commands';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTemporaryWorkspace,
  errorCodeOf,
  processesWithArgument,
  structured,
  textOf,
  uniqueSleepMarker,
} from './helpers.js';

describe('run_command and wait_command', () => {
  let workspace: Workspace;
  let root: string;
  let remove: () => Promise<void>;
  let family: ReturnType<typeof createCommandTools>;
  let runtime: ToolRuntime;

  beforeAll(async () => {
    ({ workspace, root, remove } = await createTemporaryWorkspace());
    family = createCommandTools({ workspace, maxBackgroundProcesses: 2 });
    runtime = new ToolRuntime({ workspace, tools: family.tools, processes: createProcessLauncher() });
  });
  afterAll(async () => {
    await family.close();
    await remove();
  });

  it('defines the tools as SPEC 4.4 says', () => {
    const [run, wait] = family.tools;
    expect(run).toMatchObject({
      name: 'run_command',
      effects: ['process'],
      execution: 'sequential',
      network: 'none',
    });
    expect(wait).toMatchObject({
      name: 'wait_command',
      effects: ['read'],
      execution: 'sequential',
      network: 'none',
    });
    expect(run!.capabilities).toBeUndefined();
    expect(run!.origin).toBeUndefined();
    // What clients see: the schemas as JSON.
    type JsonSchema = { properties: Record<string, JsonSchema>; [keyword: string]: unknown };
    const asJson = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonSchema;
    const runSchema = asJson(RunCommandParameters);
    const waitSchema = asJson(WaitCommandParameters);
    expect(Object.keys(runSchema.properties)).toEqual([
      'command',
      'argv',
      'shell',
      'execution_context',
      'background',
      'cwd',
      'timeout_seconds',
      'sources',
    ]);
    expect(Object.keys(asJson(RunCommandParametersReadOnly).properties)).not.toContain('background');
    expect(runSchema.additionalProperties).toBeUndefined();
    expect(runSchema.required).toBeUndefined();
    const sourcesSchema = runSchema.properties.sources!;
    expect(sourcesSchema.maxItems).toBe(50);
    expect(sourcesSchema.items).toMatchObject({ additionalProperties: false, required: ['url', 'coverage'] });
    expect(runSchema.properties.argv!.minItems).toBe(1);
    expect(runSchema.properties.shell).toMatchObject({ type: 'string', enum: ['bash', 'powershell'] });
    expect(runSchema.properties.execution_context).toMatchObject({
      type: 'string',
      enum: ['sandbox', 'host'],
    });
    expect(waitSchema.properties.timeout_seconds).toMatchObject({
      type: 'integer',
      maximum: 60,
      default: 30,
    });
    expect(waitSchema.additionalProperties).toBeUndefined();
    expect(waitSchema.required).toEqual(['handle']);
  });

  it('runs a command and reports exit code, output and duration', async () => {
    const result = await runtime.call('run_command', { command: 'echo hello; echo warn >&2; exit 2' });
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toMatchObject({
      exit_code: 2,
      stdout: 'hello\n',
      stderr: 'warn\n',
      timed_out: false,
      execution_context: 'sandbox',
      cwd: '.',
    });
    expect(textOf(result)).toContain('exit code 2');
    expect(textOf(result)).toContain('[stdout]\nhello');
    expect(textOf(result)).toContain('[stderr]\nwarn');
  });

  it('validates arguments with clear errors', async () => {
    const cases: [unknown, string][] = [
      [{}, 'INVALID_ARGUMENTS'],
      [{ command: 'true', argv: ['true'] }, 'INVALID_ARGUMENTS'],
      [{ argv: [] }, 'INVALID_ARGUMENTS'],
      [{ argv: ['true'], shell: 'bash' }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', shell: 'zsh' }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', execution_context: 'vm' }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', timeout_seconds: 1.5 }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', timeout_seconds: 0 }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', cwd: '../' }, 'PATH_OUTSIDE_WORKSPACE'],
      [
        {
          command: 'true',
          sources: Array.from({ length: 51 }, () => ({ url: 'https://a.example', coverage: 'complete' })),
        },
        'INVALID_ARGUMENTS',
      ],
      [
        { command: 'true', sources: [{ url: 'https://a.example', coverage: 'complete', extra: 1 }] },
        'INVALID_ARGUMENTS',
      ],
      [{ command: 'true', sources: [{ url: 'https://a.example' }] }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', sources: [{ url: 'https://a.example', coverage: 'most' }] }, 'INVALID_ARGUMENTS'],
      [
        { command: 'true', sources: [{ url: 'file:///etc/passwd', coverage: 'complete' }] },
        'INVALID_ARGUMENTS',
      ],
      [
        {
          command: 'true',
          sources: [{ url: 'https://a.example', coverage: 'complete', evidence_path: '../x' }],
        },
        'PATH_OUTSIDE_WORKSPACE',
      ],
      [{ command: 'Get-Date', shell: 'powershell' }, 'SHELL_UNAVAILABLE'],
      [{ argv: ['no-such-program-xyz'] }, 'COMMAND_NOT_FOUND'],
    ];
    for (const [args, code] of cases) {
      const result = await runtime.call('run_command', args);
      expect({ args, code: errorCodeOf(result) }).toEqual({ args, code });
    }
    const wait = await runtime.call('wait_command', { handle: 'x', timeout_seconds: 61 });
    expect(errorCodeOf(wait)).toBe('INVALID_ARGUMENTS');
    expect(errorCodeOf(await runtime.call('wait_command', {}))).toBe('INVALID_ARGUMENTS');
  });

  it('records sources with the result, checking the evidence file', async () => {
    const result = await runtime.call('run_command', {
      command: 'printf "fetched page" > evidence.txt; printf "\\377" > binary.bin',
      sources: [
        {
          url: 'https://docs.example/page',
          title: 'Docs',
          coverage: 'partial',
          evidence_path: 'evidence.txt',
        },
        { url: 'https://docs.example/binary', coverage: 'unknown', evidence_path: 'binary.bin' },
        { url: 'https://docs.example/none', coverage: 'complete', evidence_path: 'missing.txt' },
      ],
    });
    expect(structured(result).sources).toEqual([
      {
        url: 'https://docs.example/page',
        title: 'Docs',
        coverage: 'partial',
        evidence: { status: 'ok', path: 'evidence.txt', bytes: 12, sha256: sha256Hex('fetched page') },
      },
      {
        url: 'https://docs.example/binary',
        coverage: 'unknown',
        evidence: { status: 'not_utf8', path: 'binary.bin' },
      },
      {
        url: 'https://docs.example/none',
        coverage: 'complete',
        evidence: { status: 'missing', path: 'missing.txt' },
      },
    ]);
  });

  it('reports a timeout and kills the tree', async () => {
    const marker = uniqueSleepMarker();
    const result = await runtime.call('run_command', {
      command: `bash -c 'sleep ${marker}' & echo started; wait`,
      timeout_seconds: 1,
    });
    expect(structured(result)).toMatchObject({ timed_out: true, stdout: 'started\n' });
    expect(textOf(result)).toContain('timed out after 1 s');
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('streams a background command through several wait_command calls', async () => {
    const started = await runtime.call('run_command', {
      command: 'echo first; while [ ! -e go ]; do sleep 0.05; done; echo second; exit 7',
      background: true,
    });
    const handle = structured<{ handle: string }>(started).handle;
    expect(handle).toMatch(/^cmd_/);
    const first = await runtime.call('wait_command', {
      handle,
      timeout_seconds: 30,
      until_output: '^first$',
    });
    expect(structured(first)).toMatchObject({ running: true, stdout: 'first\n' });
    const quiet = await runtime.call('wait_command', { handle, timeout_seconds: 0 });
    expect(structured(quiet)).toMatchObject({ running: true, stdout: '' });
    await writeFile(path.join(root, 'go'), '');
    let output = '';
    let last = quiet;
    while (structured<{ running: boolean }>(last).running) {
      last = await runtime.call('wait_command', { handle, timeout_seconds: 30 });
      output += structured<{ stdout: string }>(last).stdout;
    }
    expect(output).toBe('second\n');
    expect(structured(last)).toMatchObject({ running: false, exit_code: 7 });
    expect(errorCodeOf(await runtime.call('wait_command', { handle }))).toBe('HANDLE_COLLECTED');
    expect(errorCodeOf(await runtime.call('wait_command', { handle: 'cmd_unknown' }))).toBe('HANDLE_UNKNOWN');
    // A 1 MB handle is quoted as a bounded prefix, never echoed whole (issue 12).
    const huge = await runtime.call('wait_command', { handle: `cmd_${'x'.repeat(1_000_000)}` });
    expect(errorCodeOf(huge)).toBe('HANDLE_UNKNOWN');
    expect(JSON.stringify(huge).length).toBeLessThan(2_000);
    expect(JSON.stringify(huge)).toContain('(1000004 characters)');
  });

  it('waits through every chunk until the command exits, returning all it printed (issue 14)', async () => {
    const started = await runtime.call('run_command', {
      command: 'printf one; sleep 0.2; printf two >&2; sleep 0.2; printf three; exit 3',
      background: true,
    });
    const handle = structured<{ handle: string }>(started).handle;
    const waited = await runtime.call('wait_command', { handle, timeout_seconds: 60 });
    expect(structured(waited)).toMatchObject({
      running: false,
      exit_code: 3,
      stdout: 'onethree',
      stderr: 'two',
    });
    expect(structured(waited)).not.toHaveProperty('matched');
  });

  it('with until_output, returns once the output matches, even across chunks (issue 14)', async () => {
    const started = await runtime.call('run_command', {
      command:
        "printf 'starting\\nrea'; sleep 0.2; printf 'dy on 8080\\n'; while [ ! -e stop-wait ]; do sleep 0.05; done; echo bye",
      background: true,
    });
    const handle = structured<{ handle: string }>(started).handle;
    const ready = await runtime.call('wait_command', {
      handle,
      timeout_seconds: 60,
      until_output: 'ready on \\d+',
    });
    expect(structured(ready)).toMatchObject({
      running: true,
      matched: true,
      stdout: 'starting\nready on 8080\n',
    });
    expect(textOf(ready).split('\n')[0]).toBe(
      `${handle}: Still running; the output matched /ready on \\d+/. Output meanwhile:`,
    );
    await writeFile(path.join(root, 'stop-wait'), '');
    const done = await runtime.call('wait_command', {
      handle,
      timeout_seconds: 60,
      until_output: 'never printed',
    });
    expect(structured(done)).toMatchObject({ running: false, matched: false, exit_code: 0, stdout: 'bye\n' });
    expect(textOf(done)).toContain('(/never printed/ did not appear)');
    const invalid = await runtime.call('wait_command', { handle: 'cmd_x', until_output: '(' });
    expect(errorCodeOf(invalid)).toBe('INVALID_ARGUMENTS');
    expect(structured(invalid)).toMatchObject({
      error: { details: { problems: [{ path: '/until_output' }] } },
    });
  });

  it('limits how many background commands run at once', async () => {
    const marker = uniqueSleepMarker();
    const handles: string[] = [];
    for (let index = 0; index < 2; index++) {
      const result = await runtime.call('run_command', { argv: ['sleep', marker], background: true });
      handles.push(structured<{ handle: string }>(result).handle);
    }
    const third = await runtime.call('run_command', { argv: ['sleep', marker], background: true });
    expect(errorCodeOf(third)).toBe('TOO_MANY_BACKGROUND_PROCESSES');
    expect(processesWithArgument(marker).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses host execution unless the policy allows it', async () => {
    const denied = await runtime.call('run_command', { argv: ['true'], execution_context: 'host' });
    expect(errorCodeOf(denied)).toBe('HOST_EXECUTION_DENIED');
    const permissive = new ToolRuntime({
      workspace,
      tools: family.tools,
      processes: createProcessLauncher(),
      policy: createEffectPolicy({ effects: { process: 'allow', read: 'allow' }, hostExecution: 'allow' }),
    });
    const allowed = await permissive.call('run_command', { argv: ['true'], execution_context: 'host' });
    expect(structured(allowed)).toMatchObject({ exit_code: 0, execution_context: 'host' });
  });
});

describe('the family lifecycle', () => {
  it('ends every background command on close, is idempotent, and refuses new commands after', async () => {
    const { workspace, remove } = await createTemporaryWorkspace();
    try {
      const family = createCommandTools({ workspace });
      const runtime = new ToolRuntime({ workspace, tools: family.tools, processes: createProcessLauncher() });
      const marker = uniqueSleepMarker();
      for (let index = 0; index < 3; index++) {
        const started = await runtime.call('run_command', {
          // "up" only once both children have become sleep (exec done), so the host sees them.
          command: `sleep ${marker} & a=$!; sleep ${marker} & b=$!
            until [ "$(cat /proc/$a/comm /proc/$b/comm 2>/dev/null)" = "$(printf 'sleep\nsleep')" ]; do :; done
            echo up; wait`,
          background: true,
        });
        const handle = structured<{ handle: string }>(started).handle;
        const ready = await runtime.call('wait_command', {
          handle,
          timeout_seconds: 30,
          until_output: '^up$',
        });
        expect(structured(ready).stdout).toBe('up\n');
      }
      // `echo up` can run before the backgrounded shells have exec'd sleep: wait for all six.
      await expect.poll(() => processesWithArgument(marker).length, { timeout: 20_000 }).toBe(6);
      await family.close();
      await family.close();
      expect(processesWithArgument(marker)).toEqual([]);
      expect(errorCodeOf(await runtime.call('run_command', { argv: ['true'] }))).toBe('SESSION_CLOSED');
    } finally {
      await remove();
    }
  });

  it('offers no background in configuration R and keeps the workspace unchanged', async () => {
    const { workspace, remove } = await createTemporaryWorkspace({ readOnly: true });
    try {
      const family = createCommandTools({ workspace });
      const runtime = new ToolRuntime({ workspace, tools: family.tools, processes: createProcessLauncher() });
      expect(family.tools[0]!.parameters).toBe(RunCommandParametersReadOnly);
      const background = await runtime.call('run_command', { argv: ['true'], background: true });
      expect(errorCodeOf(background)).toBe('INVALID_ARGUMENTS');
      const write = await runtime.call('run_command', { command: 'touch new.txt' });
      expect(structured(write).exit_code).toBe(1);
      expect(structured<{ stderr: string }>(write).stderr).toContain('Read-only file system');
      await family.close();
    } finally {
      await remove();
    }
  });
});

describe('a foreground command past the host-set threshold', () => {
  it('moves to the background with a handle, and wait_command returns everything it printed', async () => {
    const { workspace, remove } = await createTemporaryWorkspace();
    const family = createCommandTools({ workspace, backgroundAfterSeconds: 3 });
    const runtime = new ToolRuntime({ workspace, tools: family.tools, processes: createProcessLauncher() });
    try {
      const progress: { progress: number; message?: string }[] = [];
      const quick = await runtime.call(
        'run_command',
        { command: 'echo quick' },
        { onProgress: (update) => progress.push(update) },
      );
      expect(structured(quick)).toMatchObject({ exit_code: 0, stdout: 'quick\n' });
      // Progress counts the bytes printed, not the clock.
      expect(progress[0]).toMatchObject({ progress: 6, message: '6 bytes of output so far' });
      const missing = await runtime.call('run_command', { argv: ['no-such-command-here'] });
      expect(errorCodeOf(missing)).toBe('COMMAND_NOT_FOUND');

      const moved = await runtime.call('run_command', {
        // Ends once the test has seen the handle (the file appears), so nothing here is timed.
        command: 'echo first; until [ -e go ]; do sleep 0.1; done; echo second',
      });
      const { handle, running, moved_to_background } = structured<{
        handle: string;
        running: boolean;
        moved_to_background: boolean;
      }>(moved);
      expect({ running, moved_to_background }).toEqual({ running: true, moved_to_background: true });
      await writeFile(path.join(workspace.root, 'go'), '');
      let stdout = '';
      for (;;) {
        const waited = structured<{ running: boolean; stdout: string; exit_code?: number }>(
          await runtime.call('wait_command', { handle, timeout_seconds: 30 }),
        );
        stdout += waited.stdout;
        if (!waited.running) {
          expect(waited.exit_code).toBe(0);
          break;
        }
      }
      expect(stdout).toBe('first\nsecond\n');
    } finally {
      await family.close();
      await remove();
    }
  });
});
