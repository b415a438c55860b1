import { createCatalogTools, type TurnModel } from '@assistant-kit/ai-sdk';
import { resultErrorOf, type ToolCatalog } from '@assistant-kit/tool-catalog';
import { type ModelMessage, NoSuchToolError, stepCountIs, streamText } from 'ai';
import { type CompactionLimits, compactToolResults } from './compaction.js';
import { type TurnFailure, TurnTimeout, turnFailureOf } from './turn-errors.js';
import { bounded, TOOL_ARGS_EVENT_LIMIT, TOOL_RESULT_EVENT_LIMIT, type TurnEvent } from './turn-events.js';

/** A catalogue call's result (tool-core's MCP-shaped ToolResult). */
type ToolResult = Awaited<ReturnType<ToolCatalog['call']>>;

/** Model steps (one provider call each) a turn may take before it stops; the timeout bounds it too. */
export const MAX_TURN_STEPS = 50;

export interface CodingTurnOptions {
  readonly model: TurnModel;
  /** The account's catalogue on its workspace; the turn is one dispatch of it. */
  readonly catalog: ToolCatalog;
  /** Instructions (the client's system messages), passed as the AI SDK's `system` option. */
  readonly system?: string;
  /** The conversation without system messages. */
  readonly messages: ModelMessage[];
  readonly limits: CompactionLimits;
  /** `executionTimeoutMinutes` of the settings: bounds the whole turn, tools and model alike. */
  readonly timeoutMinutes: number;
  /** Test hook: a shorter bound in milliseconds (the settings' minimum is one minute). */
  readonly timeoutMs?: number;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  readonly emit: (event: TurnEvent) => void;
  /** Keys to scrub from any provider text shown. */
  readonly secrets: readonly string[];
  /** Retries of a failed provider call (the AI SDK's `maxRetries`, default 2). */
  readonly maxRetries?: number;
  readonly maxSteps?: number;
}

export type CodingTurnOutcome =
  | { readonly ok: true; readonly finishReason: string }
  | { readonly ok: false; readonly failure: TurnFailure | null };

function resultText(result: ToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType} image]`)).join('\n');
}

function labelOf(messages: readonly ModelMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : 'turn';
  return text.replace(/\s+/g, ' ').slice(0, 80);
}

/**
 * Runs one coding turn: the model with the catalogue's tools, streamed as {@link TurnEvent}s,
 * inside one undo dispatch of the catalogue (so `undo_workspace_dispatches` with count 1 reverses
 * exactly this turn), bounded by the execution timeout, with old tool results compacted before
 * each step. Emits every event except `turn`, ending with exactly one `done` or `error` (none when
 * the client went away). Never throws for provider or tool failures.
 */
export async function runCodingTurn(options: CodingTurnOptions): Promise<CodingTurnOutcome> {
  const { model, catalog, emit } = options;
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? options.timeoutMinutes * 60_000;
  const timer = setTimeout(() => controller.abort(new TurnTimeout(options.timeoutMinutes)), timeoutMs);
  const onClientGone = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onClientGone();
  else options.signal.addEventListener('abort', onClientGone, { once: true });

  let failure: unknown;
  let finishReason = 'unknown';
  let steps = 0;
  let toolCalls = 0;
  let usage: Record<string, unknown> | undefined;
  const invalidCalls = new Map<string, string>();
  try {
    await catalog.dispatch(labelOf(options.messages), async () => {
      const tools = await createCatalogTools(catalog, { imagesInResults: model.route.imagesInToolResults });
      const result = streamText({
        model: model.model,
        providerOptions: model.providerOptions,
        temperature: model.temperature,
        maxOutputTokens: model.maxOutputTokens,
        tools,
        ...(options.system ? { system: options.system } : {}),
        messages: options.messages,
        stopWhen: stepCountIs(options.maxSteps ?? MAX_TURN_STEPS),
        abortSignal: controller.signal,
        maxRetries: options.maxRetries ?? 2,
        // Errors arrive as `error` parts and end the turn with a scrubbed event; the SDK's default
        // handler would print the raw error (provider text included) to the console.
        onError: () => {},
        prepareStep: ({ messages }) => {
          const compaction = compactToolResults(messages, options.limits);
          if (compaction.compactedResults === 0) return undefined;
          const { compactedResults, estimatedTokensBefore, estimatedTokensAfter, thresholdTokens } =
            compaction;
          emit({
            event: 'compaction',
            data: { compactedResults, estimatedTokensBefore, estimatedTokensAfter, thresholdTokens },
          });
          return { messages: compaction.messages };
        },
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'reasoning-delta':
            if (part.text !== '') emit({ event: 'reasoning', data: { text: part.text } });
            break;
          case 'text-delta':
            if (part.text !== '') emit({ event: 'delta', data: { text: part.text } });
            break;
          case 'tool-call': {
            toolCalls += 1;
            // A call the SDK could not parse arrives marked invalid, and its tool-error part then
            // carries only the message: keep the reason's code for that part.
            if ('invalid' in part && part.invalid === true) {
              invalidCalls.set(
                part.toolCallId,
                NoSuchToolError.isInstance(part.error) ? 'UNKNOWN_TOOL' : 'INVALID_TOOL_INPUT',
              );
            }
            const args = bounded(JSON.stringify(part.input ?? null), TOOL_ARGS_EVENT_LIMIT);
            emit({
              event: 'tool-call',
              data: { id: part.toolCallId, name: part.toolName, args: args.text, truncated: args.truncated },
            });
            break;
          }
          case 'tool-result': {
            const output = part.output as ToolResult;
            const text = bounded(resultText(output), TOOL_RESULT_EVENT_LIMIT);
            const code = resultErrorOf(output)?.code;
            emit({
              event: 'tool-result',
              data: {
                id: part.toolCallId,
                name: part.toolName,
                isError: output.isError === true,
                ...(code === undefined ? {} : { code }),
                text: text.text,
                truncated: text.truncated,
              },
            });
            break;
          }
          case 'tool-error': {
            // The model named a tool not offered (plan mode) or sent arguments that are not JSON;
            // the catalogue validates everything else.
            const code = invalidCalls.get(part.toolCallId) ?? 'TOOL_FAILED';
            const message = bounded(
              String((part.error as Error)?.message ?? part.error),
              TOOL_RESULT_EVENT_LIMIT,
            );
            emit({
              event: 'tool-result',
              data: {
                id: part.toolCallId,
                name: part.toolName,
                isError: true,
                code,
                text: message.text,
                truncated: message.truncated,
              },
            });
            break;
          }
          case 'finish-step':
            steps += 1;
            break;
          case 'finish':
            finishReason = part.finishReason;
            usage = { ...part.totalUsage };
            break;
          case 'error':
            failure ??= part.error;
            break;
          default:
            break;
        }
      }
    });
  } catch (error) {
    failure ??= error;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onClientGone);
  }

  if (controller.signal.aborted) {
    const reason = controller.signal.reason;
    if (!(reason instanceof TurnTimeout)) return { ok: false, failure: null }; // the client went away
    failure = reason;
  }
  if (failure !== undefined || finishReason === 'error') {
    const described = turnFailureOf(failure, options.secrets);
    emit({ event: 'error', data: described });
    return { ok: false, failure: described };
  }
  emit({ event: 'done', data: { finishReason, steps, toolCalls, ...(usage ? { usage } : {}) } });
  return { ok: true, finishReason };
}
