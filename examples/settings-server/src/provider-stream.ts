import type { ResolvedConnection } from '@assistant-kit/settings-resolver';
import { scrubAndTruncate } from './secret-scrub.js';

/** One chat message of a turn. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the provider stream yields. */
export type ProviderEvent =
  | { type: 'delta'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'done'; finishReason: string | null };

/** A provider failure, with a message scrubbed of the key. */
export class ProviderError extends Error {
  constructor(
    readonly code: 'PROVIDER_UNREACHABLE' | 'PROVIDER_ERROR' | 'PROVIDER_STREAM_INVALID',
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The chat-completions request body for a resolved connection. */
export function chatCompletionsBody(
  connection: ResolvedConnection,
  messages: ChatMessage[],
): Record<string, unknown> {
  return {
    model: connection.model,
    messages,
    stream: true,
    ...(connection.temperature === undefined ? {} : { temperature: connection.temperature }),
    ...(connection.maxOutputTokens === undefined ? {} : { max_tokens: connection.maxOutputTokens }),
    ...connection.providerFields,
  };
}

/**
 * Calls an OpenAI-compatible `POST {baseUrl}/chat/completions` with `stream: true` and yields
 * the answer's deltas as they arrive (server-sent events). The key goes only in the
 * Authorization header, and only when the resolver did not withhold it.
 */
export async function* streamChatCompletion(
  connection: ResolvedConnection,
  messages: ChatMessage[],
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const url = `${connection.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {}),
      },
      body: JSON.stringify(chatCompletionsBody(connection, messages)),
      signal,
    });
  } catch (error) {
    throw new ProviderError(
      'PROVIDER_UNREACHABLE',
      `The provider at ${new URL(url).origin} could not be reached (${(error as Error).name}).`,
    );
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    throw new ProviderError(
      'PROVIDER_ERROR',
      `The provider answered ${response.status}: ${scrubAndTruncate(text, [connection.apiKey], 300)}`,
      response.status,
    );
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let finishReason: string | null = null;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        yield { type: 'done', finishReason };
        return;
      }
      let parsed: {
        choices?: Array<{
          delta?: { content?: unknown; reasoning_content?: unknown };
          finish_reason?: unknown;
        }>;
      };
      try {
        parsed = JSON.parse(data);
      } catch {
        throw new ProviderError('PROVIDER_STREAM_INVALID', 'The provider sent an event that is not JSON.');
      }
      const choice = parsed.choices?.[0];
      if (typeof choice?.delta?.reasoning_content === 'string' && choice.delta.reasoning_content) {
        yield { type: 'reasoning', text: choice.delta.reasoning_content };
      }
      if (typeof choice?.delta?.content === 'string' && choice.delta.content) {
        yield { type: 'delta', text: choice.delta.content };
      }
      if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
    }
  }
  yield { type: 'done', finishReason };
}
