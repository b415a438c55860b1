import type { ModelMessage } from 'ai';

/**
 * Compaction of old tool results, the turn's answer to `contextTokenLimit` and
 * `compactionThresholdPercent`.
 *
 * Before each model step the conversation's size is estimated at one token per 4 characters of
 * its JSON (a deliberately simple, provider-independent estimate; real tokenizers differ by
 * ±30 %). When the estimate passes `contextTokenLimit × compactionThresholdPercent / 100`, the
 * outputs of the oldest tool results are replaced, one by one from the oldest, by a one-line note
 * naming the tool and the size removed, until the estimate is under the threshold. The results of
 * the latest step are never compacted (the model has not seen them yet), nor are the user's or
 * the model's own messages. Nothing is summarised by a model: compaction is deterministic, free,
 * and the model can call the tool again when it needs the content back.
 */
export interface CompactionLimits {
  readonly contextTokenLimit: number;
  readonly compactionThresholdPercent: number;
}

export interface CompactionOutcome {
  readonly messages: ModelMessage[];
  /** How many tool results were replaced by a note. */
  readonly compactedResults: number;
  readonly estimatedTokensBefore: number;
  readonly estimatedTokensAfter: number;
  readonly thresholdTokens: number;
}

const CHARACTERS_PER_TOKEN = 4;

/** Estimated tokens of a conversation: its JSON length / 4. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / CHARACTERS_PER_TOKEN);
}

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
type ToolPart = ToolMessage['content'][number];

function compactedNote(toolName: string, characters: number): string {
  return `[compacted: the ${toolName} result (${characters} characters) was removed to stay within the context limit; call the tool again if you need it]`;
}

function isCompacted(part: ToolPart): boolean {
  return (
    part.type === 'tool-result' && part.output.type === 'text' && part.output.value.startsWith('[compacted: ')
  );
}

/** Returns the conversation with old tool results compacted as described above (the input is not changed). */
export function compactToolResults(
  messages: readonly ModelMessage[],
  limits: CompactionLimits,
): CompactionOutcome {
  const thresholdTokens = Math.floor((limits.contextTokenLimit * limits.compactionThresholdPercent) / 100);
  const estimatedTokensBefore = estimateTokens(messages);
  const result = messages.map((message) =>
    message.role === 'tool' ? { ...message, content: [...message.content] } : message,
  );
  let estimate = estimatedTokensBefore;
  let compactedResults = 0;
  if (estimate > thresholdTokens) {
    let lastTool = -1;
    for (let index = result.length - 1; index >= 0; index -= 1) {
      if (result[index]!.role === 'tool') {
        lastTool = index;
        break;
      }
    }
    outer: for (let index = 0; index < lastTool; index += 1) {
      const message = result[index]!;
      if (message.role !== 'tool') continue;
      for (let partIndex = 0; partIndex < message.content.length; partIndex += 1) {
        const part = message.content[partIndex]!;
        if (part.type !== 'tool-result' || isCompacted(part)) continue;
        const size = JSON.stringify(part.output).length;
        message.content[partIndex] = {
          ...part,
          output: { type: 'text', value: compactedNote(part.toolName, size) },
        };
        compactedResults += 1;
        estimate = estimateTokens(result);
        if (estimate <= thresholdTokens) break outer;
      }
    }
  }
  return {
    messages: result,
    compactedResults,
    estimatedTokensBefore,
    estimatedTokensAfter: estimate,
    thresholdTokens,
  };
}
