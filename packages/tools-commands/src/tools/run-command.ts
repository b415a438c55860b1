import {
  type BackgroundProcess,
  defineTool,
  invalidArguments,
  type ProcessRequest,
  type ProcessResult,
  textResult,
} from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import type { CommandSession } from '../family.js';
import { outcomeLine, outputSections, structuredResult } from '../output/format.js';
import type { ExecutionContext } from '../process/process-spec.js';
import { startFailureOf } from '../process/run-process.js';
import { checkSources, recordSources } from '../provenance/sources.js';
import { type RunCommandArguments, RunCommandParameters, RunCommandParametersReadOnly } from '../schemas.js';

/** run_command: runs a command in the sandbox (or on the host when authorised), in the foreground or in the background. */
export function runCommandTool(state: CommandSession) {
  const {
    workspace,
    backgroundAfterSeconds,
    allowBackground,
    outputCap,
    defaultTimeoutSeconds,
    maxTimeoutSeconds,
    registry,
    session,
    assertOpen,
  } = state;
  return defineTool({
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
        env: state.env,
        outputCap,
        killGraceMs: state.killGraceMs,
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
        result = await context.processes.run(workspace, {
          ...request,
          signal,
          onOutput,
          keepFullOutput: context.keepOutput,
        });
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
      const truncation = result.truncated ? [truncationNote(result, outputCap)] : [];
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
}

/** What was cut from a command's output and where the full output is, for each cut stream. */
function truncationNote(result: ProcessResult, outputCap: number): string {
  const kept = (['stdout', 'stderr'] as const).flatMap((stream) => {
    const output = result.keptOutput?.[stream];
    if (output === undefined) return [];
    const partial = output.complete ? '' : ' (its first 20 MB; the rest was dropped)';
    return [
      `The full ${stream}${partial} is kept in ${output.path} (${output.lines} lines): read it with read_file, path "${output.path}", paging with offset_line.`,
    ];
  });
  return [
    `Output was cut: ${result.stdoutOmittedBytes + result.stderrOmittedBytes} bytes omitted (the first and last ${outputCap / 2} bytes of each stream are shown below).`,
    ...kept,
  ].join(' ');
}
