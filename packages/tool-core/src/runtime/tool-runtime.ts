import { randomUUID } from 'node:crypto';
import { TaskQueue } from '@assistant-kit/kernel';
import { quoteArgument } from '../bounded-quote.js';
import type { AnyToolDefinition, ToolProgress } from '../definition.js';
import { invalidArguments, isToolError, ToolError } from '../errors.js';
import type { GitGuardSnapshot } from '../git-guard/git-directory-scan.js';
import { describeGitGuardReport, GitGuard, type GitGuardReport } from '../git-guard/git-guard.js';
import { noteProcessCallHandlerReturned, noteProcessFootprint } from '../git-guard/process-footprint.js';
import { errorResult, type ToolResult } from '../result.js';
import { DEFAULT_OUTPUT_CHARACTER_CAP } from '../truncate.js';
import type { Workspace } from '../workspace/workspace.js';
import { type ArgumentValidator, compileArgumentValidator } from './argument-validation.js';
import { cutOutput, keepOutput } from './kept-output.js';
import { defaultToolPolicy, type ToolPolicy } from './policy.js';
import { type BackgroundProcess, type ProcessLauncher, refusingProcessLauncher } from './process-launcher.js';
import {
  type DeclaredParameters,
  declaredParameters,
  undeclaredArgumentNames,
  withUndeclaredArgumentsNote,
} from './undeclared-arguments.js';

/** What a {@link ToolRuntime} is built from: its workspace, its tools and the host's policy and limits. */
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
  /**
   * Run the git guard after every call whose tool has the `process` effect (default true): it
   * neutralises git configuration and hooks the call added that would make git run code.
   */
  gitGuard?: boolean;
}

/** Per-call options of {@link ToolRuntime.call}. */
export interface ToolCallOptions {
  /** Cancels the call; the handler sees it as `context.signal`. */
  signal?: AbortSignal;
  /** Receives the progress the handler reports (MCP progress notifications, for example). */
  onProgress?: (progress: ToolProgress) => void;
  /** The host's id for this call, passed to the handler (default: a random UUID). */
  callId?: string;
}

interface RegisteredTool {
  definition: AnyToolDefinition;
  /** Compiled on the first call (or validate) of the tool: listing tools must not pay for it. */
  validator: ArgumentValidator | undefined;
  /** Read from the schema with the validator: the names an argument may have. */
  declared: DeclaredParameters | undefined;
}

function validatorOf(tool: RegisteredTool): ArgumentValidator {
  if (tool.validator === undefined) {
    tool.validator = compileArgumentValidator(tool.definition.parameters);
    tool.declared = declaredParameters(tool.definition.parameters);
  }
  return tool.validator;
}

// One queue per workspace, shared by every runtime on it, so sequential tools never overlap.
const sequentialQueues = new WeakMap<Workspace, TaskQueue>();

function queueFor(workspace: Workspace): TaskQueue {
  let queue = sequentialQueues.get(workspace);
  if (queue === undefined) {
    queue = new TaskQueue();
    sequentialQueues.set(workspace, queue);
  }
  return queue;
}

const noProgress = () => {};

/** Problems of an INVALID_ARGUMENTS result listed in full; the rest are counted. */
const MAX_PROBLEMS_LISTED = 20;

/** Git guard state shared by every runtime on a workspace, like the sequential queue. */
interface GuardState {
  guard: GitGuard;
  /** Guard passes never overlap: two process calls ending together must not edit one config twice. */
  queue: TaskQueue;
  /** The state the last pass left, the baseline while background processes may be writing. */
  lastAfter: GitGuardSnapshot | undefined;
  /** Background processes started by process calls; changes they make count as added. */
  background: Set<BackgroundProcess>;
  /**
   * The scan undo checkpoints asked for as they settled a dispatch (scanForProcessFootprint),
   * taken as the process call that follows it starts: the call's baseline, not walked again.
   */
  settleScan?: { snapshot: GitGuardSnapshot; takenAt: number };
}

/**
 * How long a settle's scan stands in for the baseline of the process call that follows it: the
 * catalogue starts the call as soon as the settle is recorded; a scan older than this is taken
 * again.
 */
const SETTLE_SCAN_REUSE_MS = 1_000;

const guardStates = new WeakMap<Workspace, GuardState>();

function guardStateFor(workspace: Workspace): GuardState {
  let state = guardStates.get(workspace);
  if (state === undefined) {
    state = {
      guard: new GitGuard(workspace),
      queue: new TaskQueue(),
      lastAfter: undefined,
      background: new Set(),
    };
    guardStates.set(workspace, state);
  }
  return state;
}

/** Tells undo checkpoints that a process call may have written anywhere, and why. */
function noteNoBound(workspace: Workspace, reason: string): void {
  noteProcessFootprint(workspace, { bounded: false, reason });
}

const BACKGROUND_WRITING = 'a background process may be writing';
const GUARD_COULD_NOT_SCAN = 'the git guard could not scan';

/** Tells undo checkpoints where a guard scan found folder entries changed (see ProcessFootprint). */
function noteScanFootprint(
  workspace: Workspace,
  snapshot: GitGuardSnapshot,
  scan: 'before' | 'after' | 'settle',
): void {
  noteProcessFootprint(
    workspace,
    snapshot.unreadable.length > 0
      ? { bounded: false, reason: 'the git guard could not read every folder' }
      : {
          bounded: true,
          scan,
          foldersRead: snapshot.foldersRead,
          gitDirectories: snapshot.gitDirectories,
          ruleFiles: snapshot.ruleFiles,
        },
  );
}

/**
 * Scans the workspace with the git guard's folder memory, as before a process call, and reports
 * the footprint (`scan: 'settle'`) to `onProcessFootprint` listeners: undo checkpoints call it as
 * they settle a dispatch, so that a file made since the last scan (a person's, between calls) is
 * in a folder the footprint names before they take their base. Reports no bound while a
 * background process may be writing. With `asBaseline` (a settle for the process call about to
 * start), the next process call of the workspace takes this scan for its baseline when it starts
 * within a second, instead of walking the tree again; nothing of it has run since.
 *
 * @example
 * await scanForProcessFootprint(workspace); // listeners hear { bounded: true, scan: 'settle', … }
 */
export async function scanForProcessFootprint(
  workspace: Workspace,
  options: { asBaseline?: boolean } = {},
): Promise<void> {
  const state = guardStateFor(workspace);
  // Left in the set until a process call's pass (see #guardBaseline): one that exited may have
  // written after that pass.
  if (state.background.size > 0) {
    noteNoBound(workspace, BACKGROUND_WRITING);
    return;
  }
  try {
    const snapshot = await state.queue.run(() => state.guard.snapshot());
    state.settleScan = options.asBaseline === true ? { snapshot, takenAt: performance.now() } : undefined;
    noteScanFootprint(workspace, snapshot, 'settle');
  } catch {
    noteNoBound(workspace, GUARD_COULD_NOT_SCAN);
  }
}

/** A launcher that remembers the background processes it starts, for the git guard's baseline. */
function trackingLauncher(launcher: ProcessLauncher, state: GuardState): ProcessLauncher {
  return {
    run: (workspace, request) => launcher.run(workspace, request),
    startBackground: async (workspace, request) => {
      const started = await launcher.startBackground(workspace, request);
      state.background.add(started);
      return started;
    },
  };
}

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
  readonly #gitGuard: boolean;

  constructor(options: ToolRuntimeOptions) {
    this.workspace = options.workspace;
    this.#gitGuard = options.gitGuard ?? true;
    this.processes = options.processes ?? refusingProcessLauncher;
    this.#policy = options.policy ?? defaultToolPolicy;
    this.#outputCharacterCap = options.outputCharacterCap ?? DEFAULT_OUTPUT_CHARACTER_CAP;
    for (const definition of options.tools) {
      if (this.#tools.has(definition.name)) {
        throw new ToolError('DUPLICATE_TOOL_NAME', `Two tools are named "${definition.name}".`);
      }
      this.#tools.set(definition.name, { definition, validator: undefined, declared: undefined });
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

  /** True when this runtime offers a tool of that name. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * Compiles every tool's argument check now instead of on its first call. The first compile
   * loads the schema compiler (hundreds of modules: about a third of a second for a built package),
   * which otherwise lands on whichever call comes first. A host calls this at an idle moment,
   * for example right after answering a client's tool listing, while the model is still thinking;
   * it blocks the thread while it runs, and is a no-op for what is already compiled.
   *
   * @example
   * ```ts
   * setTimeout(() => runtime.prepareCalls(), 0).unref();
   * ```
   */
  prepareCalls(): void {
    for (const tool of this.#tools.values()) validatorOf(tool);
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
          `There is no tool named "${quoteArgument(name)}". Available: ${[...this.#tools.keys()].join(', ')}.`,
          {
            details: { name: quoteArgument(name) },
          },
        ),
      );
    }
    const argumentsObject = args === undefined ? {} : args;
    const allProblems = validatorOf(tool)(argumentsObject);
    if (allProblems.length > 0) {
      // Bounded: a problem's path holds the argument's own key names, which a caller controls, and
      // a huge object can have thousands of problems; neither may flood the answer.
      const problems = allProblems.slice(0, MAX_PROBLEMS_LISTED).map((problem) => ({
        path: quoteArgument(problem.path),
        message: quoteArgument(problem.message),
      }));
      const more =
        allProblems.length > problems.length ? `\n- … and ${allProblems.length - problems.length} more` : '';
      const list = problems
        .map((problem) => `- ${problem.path || '(arguments)'}: ${problem.message}`)
        .join('\n');
      return errorResult(
        invalidArguments(
          `The arguments of ${name} are invalid:\n${list}${more}`,
          problems,
          more === '' ? {} : { details: { totalProblems: allProblems.length } },
        ),
      );
    }
    const definition = tool.definition;
    const validArguments = argumentsObject as Record<string, unknown>;
    try {
      const decision = await this.#policy.authorize({
        toolName: name,
        effects: definition.effectsOf?.(validArguments) ?? definition.effects,
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
    const runsProcesses = definition.effects.includes('process');
    const guarded = this.#gitGuard && runsProcesses;
    const guardState = guarded ? guardStateFor(this.workspace) : undefined;
    const run = async () => {
      // Without the guard's scans around it, nothing tells where the call's processes wrote.
      if (runsProcesses && guardState === undefined) noteNoBound(this.workspace, 'the git guard is off');
      // The git guard's "before" is taken as the process call starts, inside the tool's queue turn.
      const before = guardState === undefined ? undefined : await this.#guardBaseline(guardState);
      const result = await this.#runHandler(definition, validArguments, options, guardState);
      if (guardState === undefined) return result;
      noteProcessCallHandlerReturned(this.workspace);
      return this.#applyGitGuard(guardState, before!, result);
    };
    const result =
      definition.execution === 'sequential' ? await queueFor(this.workspace).run(run) : await run();
    const undeclared = undeclaredArgumentNames(tool.declared, validArguments);
    return this.#finish(
      definition,
      undeclared.length === 0
        ? result
        : withUndeclaredArgumentsNote(result, name, tool.declared!, undeclared),
    );
  }

  /**
   * The state a process call is compared with: a fresh scan, except while a background process
   * started by an earlier call may still be writing — then the state the last pass left, so
   * what the background process planted meanwhile counts as added, not as the user's own.
   */
  async #guardBaseline(state: GuardState): Promise<GitGuardSnapshot | Error> {
    try {
      // A process in the set was still running when the last pass ended (or started since), so
      // it may have written meanwhile, even if it has exited by now.
      if (state.background.size > 0 && state.lastAfter !== undefined) {
        noteNoBound(this.workspace, BACKGROUND_WRITING);
        return state.lastAfter;
      }
      // A settle's scan for this call is its baseline (its footprint was reported then): nothing
      // of the call has run since, and a person's change meanwhile counts as theirs.
      const settle = state.settleScan;
      state.settleScan = undefined;
      if (settle !== undefined && performance.now() - settle.takenAt < SETTLE_SCAN_REUSE_MS)
        return settle.snapshot;
      const snapshot = await state.queue.run(() => state.guard.snapshot());
      noteScanFootprint(this.workspace, snapshot, 'before');
      return snapshot;
    } catch (error) {
      noteNoBound(this.workspace, GUARD_COULD_NOT_SCAN);
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** One place where every process call's git changes are checked (issue 12). */
  async #applyGitGuard(
    state: GuardState,
    before: GitGuardSnapshot | Error,
    result: ToolResult,
  ): Promise<ToolResult> {
    let report: GitGuardReport;
    if (before instanceof Error) {
      report = { neutralised: [], incomplete: `the scan before the call failed: ${before.message}` };
    } else {
      try {
        const checked = await state.queue.run(() => state.guard.check(before));
        report = checked.report;
        state.lastAfter = checked.after;
        noteScanFootprint(this.workspace, checked.after, 'after');
      } catch (error) {
        noteNoBound(this.workspace, GUARD_COULD_NOT_SCAN);
        report = {
          neutralised: [],
          incomplete: `the scan after the call failed: ${(error as Error).message}`,
        };
      }
    }
    for (const process of state.background) if (!process.running) state.background.delete(process);
    if (state.background.size > 0) noteNoBound(this.workspace, BACKGROUND_WRITING);
    const warning = describeGitGuardReport(report);
    if (warning === undefined) return result;
    return {
      ...result,
      content: [{ type: 'text', text: warning }, ...result.content],
      structuredContent: { ...(result.structuredContent ?? {}), git_guard: report },
    };
  }

  async #runHandler(
    definition: AnyToolDefinition,
    args: Record<string, unknown>,
    options: ToolCallOptions,
    guardState: GuardState | undefined,
  ): Promise<ToolResult> {
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted)
      return errorResult(new ToolError('CANCELLED', `${definition.name} was cancelled before it started.`));
    try {
      return await definition.handler(args, {
        workspace: this.workspace,
        processes: guardState === undefined ? this.processes : trackingLauncher(this.processes, guardState),
        signal,
        reportProgress: options.onProgress ?? noProgress,
        callId: options.callId ?? randomUUID(),
        keepOutput: (output) => keepOutput(this.workspace, definition.name, output),
      });
    } catch (error) {
      if (isToolError(error)) return errorResult(error);
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

  async #finish(definition: AnyToolDefinition, result: ToolResult): Promise<ToolResult> {
    let content = result.content;
    if (content.some((part) => part.type === 'text' && part.text.length > this.#outputCharacterCap)) {
      // The last bound on any tool's text: what it cuts is kept, like every tool's own cuts.
      content = await Promise.all(
        content.map(async (part) =>
          part.type === 'text' && part.text.length > this.#outputCharacterCap
            ? {
                type: 'text' as const,
                text: (
                  await cutOutput(
                    (output) => keepOutput(this.workspace, definition.name, output),
                    part.text,
                    this.#outputCharacterCap,
                  )
                ).text,
              }
            : part,
        ),
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
