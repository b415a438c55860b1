import {
  defineTool,
  invalidArguments,
  quoteArgument,
  type ToolCallContext,
  textResult,
} from '@assistant-kit/tool-core';
import { commandError } from '../errors.js';
import type { CommandSession } from '../family.js';
import { outcomeLine, outputSections } from '../output/format.js';
import { WaitedOutput } from '../output/waited-output.js';
import { DEFAULT_WAIT_SECONDS, WaitCommandParameters } from '../schemas.js';

function compileUntil(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'mu');
  } catch {
    try {
      // Some patterns valid without the u flag (e.g. '\-') are rejected with it.
      return new RegExp(pattern, 'm');
    } catch (error) {
      throw invalidArguments(
        `until_output "${quoteArgument(pattern)}" is not a valid regular expression: ${(error as Error).message}`,
        [{ path: '/until_output', message: 'must be a valid regular expression' }],
      );
    }
  }
}

/**
 * wait_command: waits until the background command exits, the timeout ends, or (with
 * `until_output`) its output matches the pattern, and returns everything it printed meanwhile
 * (bounded: the first and last parts of each stream, the cut counted).
 */
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
      'Waits until a background command exits or the timeout ends (or, with until_output, until its output matches a pattern), then returns everything it printed meanwhile and whether it is still running.',
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
      const pattern = args.until_output === undefined ? undefined : compileUntil(args.until_output);
      const background = registry.get(args.handle);
      const signal = AbortSignal.any([context.signal, session.signal]);
      const waited = new WaitedOutput();
      const deadline = Date.now() + waitSeconds * 1000;
      let matched = false;
      // Each round takes what was printed since the last one; the wait ends at exit, at the
      // deadline, on a match, or when the call or the session is cancelled.
      for (;;) {
        const outcome = await background.waitForOutputOrExit(Math.max(0, deadline - Date.now()), signal);
        if (outcome === 'cancelled' && context.signal.aborted) {
          throw commandError(
            'CANCELLED',
            'wait_command was cancelled; the background command keeps running.',
          );
        }
        matched = waited.append(background.readNewOutput(), pattern);
        if (matched || outcome === 'cancelled' || outcome === 'timeout') break;
        if (outcome === 'exited') break;
        if (Date.now() >= deadline) break;
      }
      const running = background.running;
      const cut = await keptNote(waited, context.keepOutput);
      const patternLabel = args.until_output === undefined ? '' : `/${quoteArgument(args.until_output)}/`;
      const patternFacts = pattern === undefined ? {} : { matched };
      const omitted = waited.omitted;
      if (running) {
        const status = matched
          ? `Still running; the output matched ${patternLabel}. Output meanwhile:`
          : pattern !== undefined
            ? `Still running; ${patternLabel} did not appear in ${waitSeconds} s. Output meanwhile:`
            : `Still running after ${waitSeconds} s. Output meanwhile:`;
        return textResult(
          [
            `${args.handle}: ${status}`,
            ...(cut === undefined ? [] : [cut]),
            outputSections(waited.stdout, waited.stderr),
          ].join('\n'),
          {
            handle: args.handle,
            running: true,
            ...patternFacts,
            stdout: waited.stdout,
            stderr: waited.stderr,
            omitted_bytes: omitted.bytes,
            omitted_characters: omitted.characters,
          },
        );
      }
      // Anything printed between the last read and the exit.
      waited.append(background.readNewOutput());
      const result = await background.exited;
      registry.collect(args.handle);
      const finalCut = await keptNote(waited, context.keepOutput);
      const finalOmitted = waited.omitted;
      return textResult(
        [
          `${args.handle}: finished, ${outcomeLine(result)}${pattern !== undefined && !matched ? ` (${patternLabel} did not appear)` : ''}. The handle is now collected.`,
          ...(result.limitReached === undefined ? [] : [result.limitReached.message]),
          ...(finalCut === undefined ? [] : [finalCut]),
          outputSections(waited.stdout, waited.stderr),
        ].join('\n'),
        {
          handle: args.handle,
          running: false,
          ...patternFacts,
          stdout: waited.stdout,
          stderr: waited.stderr,
          omitted_bytes: finalOmitted.bytes,
          omitted_characters: finalOmitted.characters,
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

/**
 * The cut note of a wait, followed, when anything was cut, by where the full output of the wait
 * is kept for read_file to page through.
 */
async function keptNote(
  waited: WaitedOutput,
  keep: ToolCallContext['keepOutput'],
): Promise<string | undefined> {
  const cut = waited.cutNote();
  if (cut === undefined) return undefined;
  const full = waited.fullText();
  const kept = await keep(full.text);
  if (kept === undefined) return `${cut} The full output could not be kept.`;
  const partial = full.complete ? '' : ' (what this wait read; bytes dropped before a read are not in it)';
  return `${cut} The full output of this wait${partial} is kept in ${kept.path} (${kept.lines} lines): read it with read_file, path "${kept.path}", paging with offset_line.`;
}
