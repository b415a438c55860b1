import { defineTool, invalidArguments, textResult } from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import type { CommandSession } from '../family.js';
import { outcomeLine, outputSections } from '../output/format.js';
import { DEFAULT_WAIT_SECONDS, WaitCommandParameters } from '../schemas.js';

/** wait_command: waits on a background command and returns what it printed since the last call. */
export function waitCommandTool(state: CommandSession) {
  const { registry, session } = state;
  return defineTool({
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
}
