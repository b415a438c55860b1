import { randomUUID } from 'node:crypto';
import type { AnyToolDefinition, ToolProgress } from '../definition.js';
import { ToolError } from '../errors.js';
import { errorResult, type ToolResult } from '../result.js';
import { DEFAULT_OUTPUT_CHARACTER_CAP, truncateText } from '../truncate.js';
import type { Workspace } from '../workspace/workspace.js';
import { type ArgumentValidator, compileArgumentValidator } from './argument-validation.js';
import { defaultToolPolicy, type ToolPolicy } from './policy.js';
import { type ProcessLauncher, refusingProcessLauncher } from './process-launcher.js';
import { SequentialQueue } from './sequential-queue.js';

export interface ToolRuntimeOptions {
  workspace: Workspace;
  tools: readonly AnyToolDefinition[];
  /** Authorises each call under its effect classes; defaults to {@link defaultToolPolicy}. */
  policy?: ToolPolicy;
  /** Cap on the characters of a result's text parts, as a last line of defence (default 100,000). */
  outputCharacterCap?: number;
  /**
   * Starts processes for handlers, with the host's sandbox options. Without it every process
   * start is refused (`PROCESS_LAUNCHER_MISSING`).
   */
  processes?: ProcessLauncher;
}

export interface ToolCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
  callId?: string;
}

interface RegisteredTool {
  definition: AnyToolDefinition;
  /** Compiled on the first call (or validate) of the tool: listing tools must not pay for it. */
  validator: ArgumentValidator | undefined;
}

function validatorOf(tool: RegisteredTool): ArgumentValidator {
  tool.validator ??= compileArgumentValidator(tool.definition.parameters);
  return tool.validator;
}

// One queue per workspace, shared by every runtime on it, so sequential tools never overlap.
const sequentialQueues = new WeakMap<Workspace, SequentialQueue>();

function queueFor(workspace: Workspace): SequentialQueue {
  let queue = sequentialQueues.get(workspace);
  if (queue === undefined) {
    queue = new SequentialQueue();
    sequentialQueues.set(workspace, queue);
  }
  return queue;
}

const noProgress = () => {};

/**
 * Runs tool calls: validates arguments against each tool's schema (compiled once, on the tool's
 * first call, so creating a runtime stays cheap), asks the
 * policy, runs `sequential` tools one at a time per workspace, and returns MCP CallToolResults.
 * Failures never throw: they come back as error results with a stable code.
 *
 * @example
 * const runtime = new ToolRuntime({ workspace, tools: filesTools.tools });
 * const result = await runtime.call('read_file', { path: 'README.md' });
 */
export class ToolRuntime {
  readonly workspace: Workspace;
  readonly processes: ProcessLauncher;
  readonly #tools = new Map<string, RegisteredTool>();
  #policy: ToolPolicy;
  readonly #outputCharacterCap: number;

  constructor(options: ToolRuntimeOptions) {
    this.workspace = options.workspace;
    this.processes = options.processes ?? refusingProcessLauncher;
    this.#policy = options.policy ?? defaultToolPolicy;
    this.#outputCharacterCap = options.outputCharacterCap ?? DEFAULT_OUTPUT_CHARACTER_CAP;
    for (const definition of options.tools) {
      if (this.#tools.has(definition.name)) {
        throw new ToolError('INVALID_ARGUMENTS', `Two tools are named "${definition.name}".`);
      }
      this.#tools.set(definition.name, { definition, validator: undefined });
    }
  }

  /** The tool definitions, in the order they were given. */
  get tools(): AnyToolDefinition[] {
    return [...this.#tools.values()].map((tool) => tool.definition);
  }

  get policy(): ToolPolicy {
    return this.#policy;
  }

  /** Replaces the policy, for example when a turn's permission mode changes. */
  setPolicy(policy: ToolPolicy): void {
    this.#policy = policy;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Validates arguments without running anything; returns the problems (empty when valid). */
  validate(name: string, args: unknown) {
    const tool = this.#tools.get(name);
    if (tool === undefined) return [{ path: '', message: `unknown tool "${name}"` }];
    return validatorOf(tool)(args);
  }

  /** Runs one call. Never throws: every failure is an error result with a code. */
  async call(name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      return errorResult(
        new ToolError(
          'TOOL_NOT_FOUND',
          `There is no tool named "${name}". Available: ${[...this.#tools.keys()].join(', ')}.`,
          {
            details: { name },
          },
        ),
      );
    }
    const argumentsObject = args === undefined ? {} : args;
    const problems = validatorOf(tool)(argumentsObject);
    if (problems.length > 0) {
      const list = problems
        .map((problem) => `- ${problem.path || '(arguments)'}: ${problem.message}`)
        .join('\n');
      return errorResult(
        new ToolError('INVALID_ARGUMENTS', `The arguments of ${name} are invalid:\n${list}`, {
          details: { problems },
        }),
      );
    }
    const definition = tool.definition;
    const validArguments = argumentsObject as Record<string, unknown>;
    try {
      const decision = await this.#policy.authorize({
        toolName: name,
        effects: definition.effects,
        arguments: validArguments,
        hostExecution: definition.requiresHostExecution?.(validArguments) ?? false,
      });
      if (!decision.allowed) {
        return errorResult(
          new ToolError(decision.code ?? 'PERMISSION_DENIED', decision.reason, { details: { tool: name } }),
        );
      }
    } catch (error) {
      return errorResult(
        new ToolError('PERMISSION_DENIED', `Authorisation of ${name} failed.`, { cause: error }),
      );
    }
    const run = () => this.#runHandler(definition, validArguments, options);
    const result =
      definition.execution === 'sequential' ? await queueFor(this.workspace).run(run) : await run();
    return this.#finish(definition, result);
  }

  async #runHandler(
    definition: AnyToolDefinition,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted)
      return errorResult(new ToolError('CANCELLED', `${definition.name} was cancelled before it started.`));
    try {
      return await definition.handler(args, {
        workspace: this.workspace,
        processes: this.processes,
        signal,
        reportProgress: options.onProgress ?? noProgress,
        callId: options.callId ?? randomUUID(),
      });
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error);
      if (signal.aborted)
        return errorResult(new ToolError('CANCELLED', `${definition.name} was cancelled.`, { cause: error }));
      const message = error instanceof Error ? error.message : String(error);
      return errorResult(
        new ToolError('INTERNAL_ERROR', `${definition.name} failed unexpectedly: ${message}`, {
          cause: error,
        }),
      );
    }
  }

  #finish(definition: AnyToolDefinition, result: ToolResult): ToolResult {
    let content = result.content;
    if (content.some((part) => part.type === 'text' && part.text.length > this.#outputCharacterCap)) {
      content = content.map((part) =>
        part.type === 'text'
          ? { type: 'text', text: truncateText(part.text, this.#outputCharacterCap).text }
          : part,
      );
    }
    if (definition.origin === undefined) return content === result.content ? result : { ...result, content };
    return {
      ...result,
      content,
      structuredContent: { ...(result.structuredContent ?? {}), origin: definition.origin },
      _meta: { ...(result._meta ?? {}), origin: definition.origin },
    };
  }
}
