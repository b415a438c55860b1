import {
  type BatchCall,
  fromOpenAIArguments,
  type ToolCatalog,
  toOpenAITools,
} from '@assistant-kit/tool-catalog';

/** A Chat Completions message (the subset this loop sends and reads). */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface AgentLoopOptions {
  catalog: ToolCatalog;
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when given. */
  apiKey?: string;
  /** The conversation so far: system prompt, earlier turns, and the new user message. */
  messages: ChatMessage[];
  /** Model requests before the loop gives up (default 20). */
  maxSteps?: number;
  /** Label of the undo dispatch this run is recorded as. */
  dispatchLabel?: string;
  signal?: AbortSignal;
  /** Sees every step, for logging or a UI. */
  onEvent?: (event: AgentEvent) => void;
}

export type AgentEvent =
  | { type: 'model_reply'; step: number; content: string | null; toolCalls: number }
  | { type: 'tool_result'; name: string; isError: boolean; text: string };

export interface AgentLoopResult {
  /** The whole conversation, including this run's assistant and tool messages. */
  messages: ChatMessage[];
  /** The model's last text answer. */
  finalText: string | null;
  steps: number;
}

interface ChatCompletion {
  choices: Array<{
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
    finish_reason: string;
  }>;
}

/** Text of a tool result for a `tool` message (Chat Completions tool messages carry text only). */
function toolMessageText(result: Awaited<ReturnType<ToolCatalog['call']>>): string {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const images = result.content.filter((part) => part.type === 'image').length;
  return images === 0
    ? text
    : `${text}\n[${images} image(s) attached to the result are not shown in this API]`;
}

async function complete(options: AgentLoopOptions, messages: ChatMessage[]): Promise<ChatCompletion> {
  const response = await fetch(`${options.baseUrl.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    },
    body: JSON.stringify({
      model: options.model,
      messages,
      tools: toOpenAITools(options.catalog.tools),
      tool_choice: 'auto',
      parallel_tool_calls: true,
    }),
    signal: options.signal,
  });
  if (!response.ok) {
    // The body may echo the request; keep only the status and a short reason.
    throw new Error(`The model endpoint answered HTTP ${response.status} ${response.statusText}.`);
  }
  return (await response.json()) as ChatCompletion;
}

/**
 * A minimal agent: sends the conversation and the catalogue's tools to an OpenAI-compatible
 * endpoint, runs the tool calls it gets back through the catalogue (in the order the model wrote
 * them), appends the results, and repeats until the model answers without tool calls. The whole
 * run is one undo dispatch, so a later `undo_workspace_dispatches` with count 1 reverses it.
 *
 * @example
 * const catalog = await createToolCatalog({ configuration: 'U', workspace: '.' });
 * const { finalText } = await runAgentLoop({ catalog, baseUrl, model, messages: [{ role: 'user', content: 'Fix the failing test.' }] });
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const messages = [...options.messages];
  const maxSteps = options.maxSteps ?? 20;
  return options.catalog.dispatch(options.dispatchLabel, async (catalog) => {
    for (let step = 1; step <= maxSteps; step += 1) {
      const completion = await complete(options, messages);
      const reply = completion.choices[0]?.message;
      if (reply === undefined) throw new Error('The model endpoint returned no choice.');
      const toolCalls = reply.tool_calls ?? [];
      messages.push(
        toolCalls.length === 0
          ? { role: 'assistant', content: reply.content }
          : { role: 'assistant', content: reply.content, tool_calls: toolCalls },
      );
      options.onEvent?.({ type: 'model_reply', step, content: reply.content, toolCalls: toolCalls.length });
      if (toolCalls.length === 0) return { messages, finalText: reply.content, steps: step };
      const batch: BatchCall[] = toolCalls.map((call) => {
        const tool = catalog.tool(call.function.name);
        return {
          id: call.id,
          name: call.function.name,
          // Unknown tools keep their raw arguments; the catalogue answers TOOL_NOT_FOUND.
          arguments: tool === undefined ? {} : fromOpenAIArguments(tool, call.function.arguments),
        };
      });
      const results = await catalog.runBatch(batch, { signal: options.signal });
      for (const { id, name, result } of results) {
        const text = toolMessageText(result);
        options.onEvent?.({ type: 'tool_result', name, isError: result.isError === true, text });
        messages.push({ role: 'tool', tool_call_id: id!, content: text });
      }
    }
    return { messages, finalText: null, steps: maxSteps };
  });
}
