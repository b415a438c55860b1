/**
 * The server-sent events of `POST /api/turns`, in order: `turn` (what was resolved), then any of
 * `reasoning`, `delta` (answer text), `tool-call`, `tool-result`, `compaction`, and finally exactly
 * one of `done` or `error`. Every payload is JSON; tool arguments and results are bounded.
 */
export type TurnEvent =
  | { event: 'turn'; data: Record<string, unknown> }
  | { event: 'reasoning'; data: { text: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'tool-call'; data: { id: string; name: string; args: string; truncated: boolean } }
  | {
      event: 'tool-result';
      data: { id: string; name: string; isError: boolean; code?: string; text: string; truncated: boolean };
    }
  | {
      event: 'compaction';
      data: {
        compactedResults: number;
        estimatedTokensBefore: number;
        estimatedTokensAfter: number;
        thresholdTokens: number;
      };
    }
  | {
      event: 'done';
      data: { finishReason: string; steps: number; toolCalls: number; usage?: Record<string, unknown> };
    }
  | { event: 'error'; data: { code: string; message: string; status?: number } };

/** Characters of a tool call's arguments shown in its event. */
export const TOOL_ARGS_EVENT_LIMIT = 4_000;
/** Characters of a tool result's text shown in its event (the model gets the full, catalogue-capped text). */
export const TOOL_RESULT_EVENT_LIMIT = 2_000;

/** Cuts text to `limit` characters and says whether it did. */
export function bounded(text: string, limit: number): { text: string; truncated: boolean } {
  return text.length <= limit ? { text, truncated: false } : { text: text.slice(0, limit), truncated: true };
}
