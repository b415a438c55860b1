import {
  type BackgroundProcess,
  defineTool,
  invalidArguments,
  type ProcessRequest,
  type ProcessResult,
  type ToolFamily,
  textResult,
  type Workspace,
} from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import type { ExecutionContext } from '../process/process-spec.js';
import { startFailureOf } from '../process/run-process.js';
import { BackgroundRegistry, DEFAULT_MAX_BACKGROUND_PROCESSES } from './background-registry.js';
import { outcomeLine, outputSections, structuredResult } from './format.js';
import {
  DEFAULT_WAIT_SECONDS,
  type RunCommandArguments,
  RunCommandParameters,
  RunCommandParametersReadOnly,
  WaitCommandParameters,
} from './schemas.js';
import { checkSources, recordSources } from './sources.js';

/** Default bytes kept per stream in a tool result (head and tail). */
export const DEFAULT_TOOL_OUTPUT_CAP_BYTES = 30_000;
/** Default foreground timeout of run_command, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 120;
/** Longest timeout run_command accepts, in seconds (the default executionTimeoutMinutes, 40). */
export const MAX_TIMEOUT_SECONDS = 2_400;

export interface CommandToolsOptions {
  workspace: Workspace;
  /** Offer `background` (configurations W and U). Default: true unless the workspace is read-only. */
  allowBackground?: boolean;
  /** Background commands that may run at once (default 8). */
  maxBackgroundProcesses?: number;
  /** Bytes kept per stream in results (default 30,000: the first and last 15,000). */
  outputCap?: number;
  /** Foreground timeout when a call gives none (default 120 s). */
  defaultTimeoutSeconds?: number;
  /** Largest accepted timeout; larger ones are lowered to it (default 2,400 s). */
  maxTimeoutSeconds?: number;
  /** Milliseconds between SIGTERM and SIGKILL (default 500). */
  killGraceMs?: number;
  /** Variables given to every command, after the environment is scrubbed. */
  env?: Record<string, string>;
  /**
   * A foreground run_command still running after this many seconds moves itself to the
   * background and returns a handle for wait_command (its timeout keeps applying). Default: never.
   * Only where background is offered (W, U) and a background slot is free.
   */
  backgroundAfterSeconds?: number;
}

/**
 * The commands family bound to one workspace session: run_command and wait_command (SPEC 4.4),
 * in that order. `close()` ends every background command and every running call; it is
 * idempotent.
 *
 * @example
 * const family = createCommandTools({ workspace });
 * const runtime = new ToolRuntime({ workspace, tools: family.tools });
 * await runtime.call('run_command', { argv: ['git', 'status', '--short'] });
 * await family.close();
 */
export function createCommandTools(options: CommandToolsOptions): ToolFamily {
  if ('sandbox' in options) {
    // Silently dropping a host's hidden paths or limits would be a security hole.
    throw commandError(
      'INVALID_OPTIONS',
      'createCommandTools no longer takes sandbox options: give them to createProcessLauncher and pass the launcher to the ToolRuntime as `processes` (the tool catalogue does this from families.commands.sandbox).',
    );
  }
  const { workspace } = options;
  const backgroundAfterSeconds = options.backgroundAfterSeconds;
  if (backgroundAfterSeconds !== undefined && !(backgroundAfterSeconds > 0)) {
    throw commandError('INVALID_OPTIONS', 'backgroundAfterSeconds must be a positive number of seconds.');
  }
  const allowBackground = options.allowBackground ?? !workspace.readOnly;
  const outputCap = options.outputCap ?? DEFAULT_TOOL_OUTPUT_CAP_BYTES;
  const defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? MAX_TIMEOUT_SECONDS;
  const registry = new BackgroundRegistry(options.maxBackgroundProcesses ?? DEFAULT_MAX_BACKGROUND_PROCESSES);
  const session = new AbortController();
  let closing: Promise<void> | undefined;

  const assertOpen = () => {
    if (session.signal.aborted) {
      throw commandError('SESSION_CLOSED', 'The workspace session is closed; no command can start.');
    }
  };

  const runCommand = defineTool({
    name: 'run_command',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 29,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Runs a command (a bash script, or an argv without a shell) in the workspace, sandboxed without network by default, and returns its output and exit status.',
    parameters: allowBackground ? RunCommandParameters : RunCommandParametersReadOnly,
    effects: ['process'],
    execution: 'sequential',
    network: 'none',
    requiresHostExecution: (args) => args.execution_context === 'host',
    handler: async (rawArguments, context) => {
      assertOpen();
      const args = rawArguments as RunCommandArguments;
      if (!allowBackground && (rawArguments as Record<string, unknown>).background !== undefined) {
        throw invalidArguments(
          'background is not offered in this configuration (read-only); run the command in the foreground.',
          [{ path: '/background', message: 'is not offered in this configuration' }],
        );
      }
      if (args.command === undefined && args.argv === undefined) {
        throw invalidArguments('Give command (a script) or argv (an executable and its arguments).', [
          { path: '', message: 'needs command or argv' },
        ]);
      }
      if (args.command !== undefined && args.argv !== undefined) {
        throw invalidArguments('Give either command or argv, not both (they are mutually exclusive).', [
          { path: '/argv', message: 'must not be given with command' },
        ]);
      }
      if (args.argv !== undefined && args.shell !== undefined) {
        throw invalidArguments('shell applies to command only; argv runs without a shell.', [
          { path: '/shell', message: 'applies to command only' },
        ]);
      }
      if (args.timeout_seconds !== undefined && args.timeout_seconds < 1) {
        throw invalidArguments('timeout_seconds must be at least 1.', [
          { path: '/timeout_seconds', message: 'must be at least 1' },
        ]);
      }
      const sources = args.sources ?? [];
      await checkSources(sources, workspace);
      const executionContext: ExecutionContext = args.execution_context ?? 'sandbox';
      const requestedTimeout = args.timeout_seconds;
      const timeoutSeconds =
        requestedTimeout === undefined
          ? args.background === true
            ? undefined
            : defaultTimeoutSeconds
          : Math.min(requestedTimeout, maxTimeoutSeconds);
      const signal = AbortSignal.any([context.signal, session.signal]);
      const request: ProcessRequest = {
        argv: args.argv,
        command: args.command,
        shell: args.shell,
        cwd: args.cwd,
        executionContext,
        timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
        env: options.env,
        outputCap,
        killGraceMs: options.killGraceMs,
      };
      const notes: string[] = [];
      if (requestedTimeout !== undefined && requestedTimeout > maxTimeoutSeconds) {
        notes.push(`timeout_seconds was lowered to the maximum of ${maxTimeoutSeconds} s.`);
      }

      if (args.background === true) {
        registry.assertRoom();
        const background = await context.processes.startBackground(workspace, {
          ...request,
          signal: session.signal,
        });
        registry.add(background);
        const provenance = sources.length > 0 ? await recordSources(sources, workspace) : undefined;
        const text = [
          `Started in the background (${executionContext}) with handle ${background.id}.`,
          'Call wait_command with this handle to read new output and see whether it is still running.',
          ...notes,
        ].join('\n');
        return textResult(text, {
          handle: background.id,
          running: true,
          execution_context: executionContext,
          timeout_seconds: timeoutSeconds ?? null,
          ...(provenance === undefined ? {} : { sources: provenance }),
        });
      }

      // Progress counts the bytes the command has printed (a client sees it is alive and moving),
      // throttled to once a second; it stops once the command moved to the background.
      let lastProgress = 0;
      let printedBytes = 0;
      let reportsProgress = true;
      const onOutput = (chunk: { text: string }) => {
        printedBytes += Buffer.byteLength(chunk.text);
        const now = Date.now();
        if (!reportsProgress || now - lastProgress < 1000) return;
        lastProgress = now;
        context.reportProgress({ progress: printedBytes, message: `${printedBytes} bytes of output so far` });
      };
      let result: ProcessResult;
      if (allowBackground && backgroundAfterSeconds !== undefined && registry.hasRoom()) {
        // Started as a background process so that it can stay running when the call returns; the
        // call's own signal ends it only while the call is still waiting for it.
        const control = new AbortController();
        const abortWithCall = () => control.abort();
        signal.addEventListener('abort', abortWithCall, { once: true });
        let background: BackgroundProcess;
        try {
          background = await context.processes.startBackground(workspace, {
            ...request,
            signal: control.signal,
            onOutput,
          });
        } catch (error) {
          signal.removeEventListener('abort', abortWithCall);
          throw error;
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const threshold = new Promise<'moved'>((resolve) => {
          timer = setTimeout(() => resolve('moved'), backgroundAfterSeconds * 1000);
        });
        const first = await Promise.race([background.exited, threshold]);
        clearTimeout(timer);
        signal.removeEventListener('abort', abortWithCall);
        if (first === 'moved' && registry.hasRoom() && !signal.aborted) {
          reportsProgress = false;
          session.signal.addEventListener('abort', () => control.abort(), { once: true });
          registry.add(background);
          const provenance = sources.length > 0 ? await recordSources(sources, workspace) : undefined;
          return textResult(
            [
              `Still running after ${backgroundAfterSeconds} s, so it moved to the background (${executionContext}) with handle ${background.id}.`,
              'Call wait_command with this handle for its output so far and its exit; its timeout still applies.',
              ...notes,
            ].join('\n'),
            {
              handle: background.id,
              running: true,
              moved_to_background: true,
              execution_context: executionContext,
              timeout_seconds: timeoutSeconds ?? null,
              ...(provenance === undefined ? {} : { sources: provenance }),
            },
          );
        }
        if (first === 'moved') {
          // Not moved after all (no free slot, or the call is being cancelled): keep waiting.
          if (signal.aborted) control.abort();
          else signal.addEventListener('abort', abortWithCall, { once: true });
        }
        result = await background.exited;
        signal.removeEventListener('abort', abortWithCall);
        const startFailure = startFailureOf(result, {
          commandArgv: args.argv === undefined ? ['bash'] : [...args.argv],
          executionContext,
        });
        if (startFailure !== undefined) throw startFailure;
      } else {
        result = await context.processes.run(workspace, { ...request, signal, onOutput });
      }
      if (result.cancelled && context.signal.aborted) {
        throw commandError('CANCELLED', 'run_command was cancelled; the whole process tree was killed.', {
          details: structuredResult(result),
        });
      }
      if (result.cancelled) {
        throw commandError(
          'SESSION_CLOSED',
          'The workspace session closed while the command ran; it was killed.',
          {
            details: structuredResult(result),
          },
        );
      }
      const provenance = sources.length > 0 ? await recordSources(sources, workspace) : undefined;
      const truncation = result.truncated
        ? [
            `Output was cut: ${result.stdoutOmittedBytes + result.stderrOmittedBytes} bytes omitted (the first and last ${outputCap / 2} bytes of each stream are kept).`,
          ]
        : [];
      const text = [
        outcomeLine(result, timeoutSeconds),
        ...(result.limitReached === undefined ? [] : [result.limitReached.message]),
        ...notes,
        ...truncation,
        outputSections(result.stdout, result.stderr),
      ].join('\n');
      return textResult(text, {
        ...structuredResult(result),
        ...(provenance === undefined ? {} : { sources: provenance }),
      });
    },
  });

  const waitCommand = defineTool({
    name: 'wait_command',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 30,
      planMode: 'hidden',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Waits for new output or the exit of a background command, then returns the output since the last wait and whether it is still running.',
    parameters: WaitCommandParameters,
    effects: ['read'],
    execution: 'sequential',
    network: 'none',
    handler: async (args, context) => {
      const waitSeconds = args.timeout_seconds ?? DEFAULT_WAIT_SECONDS;
      if (waitSeconds < 0) {
        throw invalidArguments('timeout_seconds cannot be negative.', [
          { path: '/timeout_seconds', message: 'must not be negative' },
        ]);
      }
      const background = registry.get(args.handle);
      const outcome = await background.waitForOutputOrExit(
        waitSeconds * 1000,
        AbortSignal.any([context.signal, session.signal]),
      );
      if (outcome === 'cancelled' && context.signal.aborted) {
        throw commandError('CANCELLED', 'wait_command was cancelled; the background command keeps running.');
      }
      const running = background.running;
      const output = background.readNewOutput();
      const cut =
        output.omittedBytes > 0
          ? [`${output.omittedBytes} bytes of new output were omitted from the middle (output cap).`]
          : [];
      if (running) {
        const status =
          outcome === 'output'
            ? 'Still running; new output:'
            : `Still running; no new output in ${waitSeconds} s.`;
        return textResult(
          [
            `${args.handle}: ${status}`,
            ...cut,
            ...(outcome === 'output' ? [outputSections(output.stdout, output.stderr)] : []),
          ].join('\n'),
          {
            handle: args.handle,
            running: true,
            stdout: output.stdout,
            stderr: output.stderr,
            omitted_bytes: output.omittedBytes,
          },
        );
      }
      const result = await background.exited;
      registry.collect(args.handle);
      return textResult(
        [
          `${args.handle}: finished, ${outcomeLine(result)}. The handle is now collected.`,
          ...(result.limitReached === undefined ? [] : [result.limitReached.message]),
          ...cut,
          outputSections(output.stdout, output.stderr),
        ].join('\n'),
        {
          handle: args.handle,
          running: false,
          stdout: output.stdout,
          stderr: output.stderr,
          omitted_bytes: output.omittedBytes,
          exit_code: result.exitCode,
          signal: result.signal,
          timed_out: result.timedOut,
          cancelled: result.cancelled,
          duration_ms: result.durationMs,
          execution_context: result.executionContext,
          ...(result.limitReached === undefined ? {} : { limit_reached: result.limitReached }),
        },
      );
    },
  });

  return {
    tools: [runCommand, waitCommand],
    close() {
      closing ??= (async () => {
        session.abort();
        await registry.killAll();
      })();
      return closing;
    },
  };
}
