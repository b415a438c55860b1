import {
  type DeclaredToolDefinition,
  type EffectClass,
  type EffectRule,
  errorResult,
  isToolError,
  resultErrorOf,
  type ToolFamily,
  type ToolProgress,
  type ToolResult,
  ToolRuntime,
  Workspace,
} from '@assistant-kit/tool-core';
import type { EndedDispatch, OpenDispatch } from '@assistant-kit/tools-undo';
import { type BatchCall, type BatchResult, runBatch } from './batch.js';
import { CallDeadlines } from './call-deadlines.js';
import { type Configuration, isConfiguration, toolsOfConfiguration } from './configurations.js';
import { catalogError } from './errors.js';
import {
  type AssembledFamilies,
  assembleFamilies,
  type DispatchCheckpoints,
  type FamilyOptions,
  type LoadedFamily,
  type OmittableFamily,
} from './families.js';
import {
  type ApprovalCallback,
  createPermissionPolicy,
  isPermissionMode,
  PERMISSION_MODE_NAMES,
  type PermissionMode,
  permissionRulesFor,
} from './permission-modes.js';
import { planModeTools } from './plan-mode.js';
import { type CatalogTool, describeTool } from './tool-descriptor.js';

/**
 * The parts of a resolved turn's settings that configure the catalogue (the client settings
 * object of SPEC 2.1 satisfies it).
 */
export interface CatalogSettings {
  permissionMode?: PermissionMode;
  permissionsEnabled?: boolean;
  /** Cap on the running time of any one tool call, in minutes (SPEC 8 default 40). */
  executionTimeoutMinutes?: number;
  /** Cap on the characters of a result's text parts (SPEC 8 default 100,000). */
  maxAttachmentChars?: number;
}

/** What a {@link ToolCatalog} is opened with: configuration, workspace, permission mode and families' options. */
export interface ToolCatalogOptions {
  configuration: Configuration;
  /** The workspace root, or an open Workspace. R always works on a read-only view of it. */
  workspace: string | Workspace;
  /** Wins over `settings.permissionMode`; default `auto` (the settings default). */
  permissionMode?: PermissionMode;
  /** Wins over `settings.permissionsEnabled`; default true. */
  permissionsEnabled?: boolean;
  /** Asked for each call the permission mode does not run on its own; without it those are refused. */
  approve?: ApprovalCallback;
  /** Overrides the permission mode's rule for host execution (plan mode always refuses it). */
  hostExecution?: EffectRule;
  /** A resolved turn's settings: permission mode, execution timeout and output limit. */
  settings?: CatalogSettings;
  /** Options passed through to the families' factories. */
  families?: FamilyOptions;
  /**
   * Families to leave out: their tools are not offered and their packages are never imported.
   * For a host that installed only what it uses: the browser and code families' heavy
   * dependencies (playwright-core; TypeScript, the language servers and the grammars) are
   * optional peers, so without them those families' tools could only answer "install X".
   * The configuration keeps its name, with fewer tools than SPEC 4.4 lists.
   */
  omitFamilies?: readonly OmittableFamily[];
  /** Told when each family has been imported and created (for a host's start-up log). */
  onFamilyLoaded?: (family: LoadedFamily) => void;
}

/** Per-call options of {@link ToolCatalog.call}. */
export interface CatalogCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Receives progress the tool reports (for MCP progress notifications, for example). */
  onProgress?: (progress: ToolProgress) => void;
  /** The host's id of the call, passed to the tool (default: a random UUID). */
  callId?: string;
}

/** SPEC 8: executionTimeoutMinutes default. */
export const DEFAULT_EXECUTION_TIMEOUT_MINUTES = 40;
/** SPEC 8: maxAttachmentChars default, used as the cap on a result's text. */
export const DEFAULT_MAX_ATTACHMENT_CHARS = 100_000;

interface ActiveMode {
  permissionMode: PermissionMode;
  permissionsEnabled: boolean;
  planFilter: boolean;
}

/**
 * A W, U or R set of workspace tools bound to one workspace session: the tools in SPEC order,
 * `call` through the tool-core runtime under the permission mode's policy, the dispatch API, and
 * `close` for everything the families started. Create it with {@link createToolCatalog}.
 */
export class ToolCatalog {
  readonly configuration: Configuration;
  readonly workspace: Workspace;
  readonly #families: ToolFamily[];
  readonly #checkpoints: DispatchCheckpoints;
  readonly #definitions: DeclaredToolDefinition[];
  /** The definitions by name: a call looks its tool up once instead of scanning the list. */
  readonly #definitionByName: ReadonlyMap<string, DeclaredToolDefinition>;
  readonly #planToolNames: ReadonlySet<string>;
  readonly #descriptors: CatalogTool[];
  readonly #planDescriptors: CatalogTool[];
  readonly #runtime: ToolRuntime;
  readonly #planRuntime: ToolRuntime;
  readonly #options: ToolCatalogOptions;
  #mode: ActiveMode;
  #executionTimeoutMs: number;
  readonly #deadlines = new CallDeadlines();
  #closed: Promise<void> | undefined;
  readonly #diagnosticsAfterWrite: AssembledFamilies['diagnosticsAfterWrite'];

  /** @internal Use {@link createToolCatalog}. */
  constructor(
    options: ToolCatalogOptions,
    workspace: Workspace,
    assembled: AssembledFamilies,
    definitions: DeclaredToolDefinition[],
  ) {
    this.configuration = options.configuration;
    this.workspace = workspace;
    this.#options = options;
    this.#families = assembled.families;
    this.#checkpoints = assembled.checkpoints;
    this.#diagnosticsAfterWrite = assembled.diagnosticsAfterWrite;
    this.#definitions = definitions;
    this.#definitionByName = new Map(definitions.map((tool) => [tool.name, tool]));
    this.#descriptors = definitions.map(describeTool);
    const planDefinitions = planModeTools(definitions);
    this.#planToolNames = new Set(planDefinitions.map((tool) => tool.name));
    this.#planDescriptors = planDefinitions.map(describeTool);
    const outputCharacterCap = options.settings?.maxAttachmentChars ?? DEFAULT_MAX_ATTACHMENT_CHARS;
    const { processes } = assembled;
    this.#runtime = new ToolRuntime({ workspace, tools: definitions, outputCharacterCap, processes });
    this.#planRuntime = new ToolRuntime({ workspace, tools: planDefinitions, outputCharacterCap, processes });
    this.#mode = this.#modeFrom(options, options.settings);
    this.#executionTimeoutMs = minutesToMs(options.settings?.executionTimeoutMinutes);
    this.#installPolicies();
  }

  /** The permission mode in force. */
  get permissionMode(): PermissionMode {
    return this.#mode.permissionMode;
  }

  get permissionsEnabled(): boolean {
    return this.#mode.permissionsEnabled;
  }

  /**
   * Compiles the argument checks of every tool offered (see `ToolRuntime.prepareCalls`), so the
   * first call of a session does not load the schema compiler. Call it at an idle moment: the MCP
   * server does right after it answered `tools/list`.
   */
  prepareCalls(): void {
    this.#runtime.prepareCalls();
    this.#planRuntime.prepareCalls();
  }

  /** The tools offered now, in SPEC order (the plan tools only, in plan mode). */
  get tools(): readonly CatalogTool[] {
    return this.#mode.planFilter ? this.#planDescriptors : this.#descriptors;
  }

  /** Every tool of the configuration, in SPEC order, whatever the permission mode. */
  get configurationTools(): readonly CatalogTool[] {
    return this.#descriptors;
  }

  /** The tool definitions of the configuration (schemas, metadata and handlers). */
  get definitions(): readonly DeclaredToolDefinition[] {
    return this.#definitions;
  }

  /**
   * The effect classes a call with these arguments has: the tool's declared classes, or, for a
   * tool whose effects depend on its arguments (browser_screenshot with a path writes a file),
   * those of this call. Unknown tools and arguments the tool cannot read give the declared ones.
   */
  effectsOf(name: string, args: unknown): readonly EffectClass[] {
    const definition = this.#definitionByName.get(name);
    if (definition === undefined) return [];
    if (definition.effectsOf === undefined || typeof args !== 'object' || args === null)
      return definition.effects;
    try {
      return definition.effectsOf(args);
    } catch {
      return definition.effects;
    }
  }

  /** The offered tool with this name, if any. */
  tool(name: string): CatalogTool | undefined {
    return this.tools.find((tool) => tool.name === name);
  }

  /**
   * Applies a resolved turn's settings: permission mode, permissions switch, execution timeout.
   * Explicit catalogue options keep winning. Returns true when the offered tool list changed (an
   * MCP server then sends `notifications/tools/list_changed`).
   */
  applySettings(settings: CatalogSettings): boolean {
    const before = this.#mode.planFilter;
    this.#mode = this.#modeFrom(this.#options, settings);
    if (settings.executionTimeoutMinutes !== undefined) {
      this.#executionTimeoutMs = minutesToMs(settings.executionTimeoutMinutes);
    }
    this.#installPolicies();
    return before !== this.#mode.planFilter;
  }

  /**
   * Runs one tool call: arguments validated against the schema, authorised under the permission
   * mode, sequential tools serialised per workspace, capped by the execution timeout. Never
   * throws: failures come back as results with `isError` and a stable code.
   */
  async call(name: string, args: unknown, options: CatalogCallOptions = {}): Promise<ToolResult> {
    if (this.#closed !== undefined) {
      return errorResult(catalogError('CATALOG_CLOSED', 'The tool catalogue is closed; create a new one.'));
    }
    if (this.#mode.planFilter && !this.#planToolNames.has(name) && this.#runtime.has(name)) {
      return errorResult(
        catalogError(
          'PERMISSION_DENIED',
          `${name} is not available in plan mode, which only offers tools that read. Propose the change in the plan instead.`,
          { details: { tool: name, permissionMode: 'plan' } },
        ),
      );
    }
    let baselineNotice: string | undefined;
    const effects = this.#definitionByName.get(name)?.effects ?? [];
    if (effects.includes('process')) {
      // A process may change files without the Workspace seeing it: the open dispatch (observed,
      // see beginDispatch) first records where it began with a full scan (which, in a workspace's
      // first session, needs the baseline that is still being recorded: the result says so).
      try {
        ({ notice: baselineNotice } = await this.#checkpoints.noteUnobservedChanges());
      } catch (error) {
        return errorResult(
          isToolError(error)
            ? error
            : catalogError('INTERNAL_ERROR', 'Could not record the workspace before the call.', {
                cause: error,
              }),
        );
      }
    }
    const runtime = this.#mode.planFilter ? this.#planRuntime : this.#runtime;
    const deadline = this.#deadlines.start(this.#executionTimeoutMs);
    const callerSignal = options.signal;
    let forwardAbort: (() => void) | undefined;
    if (callerSignal !== undefined) {
      forwardAbort = () => deadline.controller.abort(callerSignal.reason);
      if (callerSignal.aborted) forwardAbort();
      else callerSignal.addEventListener('abort', forwardAbort, { once: true });
    }
    // Files this call writes, so its result can carry what the write broke (code diagnostics).
    const writes = effects.includes('workspace_write');
    const written = writes ? new Set<string>() : undefined;
    // A write of many files in a workspace's first session waits for the undo baseline: said too.
    const baselineWaitBefore = writes ? this.#checkpoints.baselineWaitMs : 0;
    const stopWatching =
      written === undefined
        ? undefined
        : this.workspace.onBeforeWrite((paths) => {
            for (const relative of paths) written.add(relative);
          });
    try {
      const outcome = await Promise.race([
        runtime.call(name, args, {
          signal: deadline.controller.signal,
          onProgress: options.onProgress,
          callId: options.callId,
        }),
        deadline.expired,
      ]);
      const timedOut =
        outcome === 'timeout' ||
        (deadline.controller.signal.aborted && !callerSignal?.aborted && isCancelled(outcome));
      if (!timedOut) {
        const result =
          written === undefined
            ? (outcome as ToolResult)
            : await this.#withWriteDiagnostics(outcome as ToolResult, written);
        if (writes) baselineNotice ??= this.#checkpoints.baselineWaitNotice(baselineWaitBefore);
        if (baselineNotice === undefined) return result;
        return { ...result, content: [...result.content, { type: 'text', text: baselineNotice }] };
      }
      const minutes = this.#executionTimeoutMs / 60_000;
      return errorResult(
        catalogError(
          'TIMEOUT',
          `${name} exceeded the execution timeout of ${minutes} minute(s) and was stopped.`,
          {
            details: { tool: name, executionTimeoutMinutes: minutes },
          },
        ),
      );
    } finally {
      stopWatching?.();
      deadline.done();
      if (forwardAbort !== undefined) callerSignal?.removeEventListener('abort', forwardAbort);
    }
  }

  /** Appends the new diagnostics of the files a successful call wrote (bounded in time by the code family). */
  async #withWriteDiagnostics(result: ToolResult, written: ReadonlySet<string>): Promise<ToolResult> {
    if (result.isError || written.size === 0 || this.#diagnosticsAfterWrite === undefined) return result;
    const report = await this.#diagnosticsAfterWrite([...written]).catch(() => undefined);
    if (report === undefined || report.text === '') return result;
    return {
      ...result,
      content: [...result.content, { type: 'text', text: report.text }],
      structuredContent: { ...(result.structuredContent ?? {}), diagnostics_after_write: report.data },
    };
  }

  /**
   * Runs the tool calls of one model turn in the order the model wrote them: a sequential tool's
   * call waits for the calls before it and holds back the calls after it; other calls between two
   * sequential ones run at once. Results come back in call order.
   */
  runBatch(
    calls: readonly BatchCall[],
    options: Omit<CatalogCallOptions, 'callId'> = {},
  ): Promise<BatchResult[]> {
    return runBatch(this, calls, options);
  }

  /** Whether the named tool runs one call at a time per workspace. */
  isSequential(name: string): boolean {
    return this.#definitionByName.get(name)?.execution === 'sequential';
  }

  /**
   * Marks the beginning of a dispatch (one unit of the agent's work that undo_workspace_dispatches
   * can reverse) by recording an undo checkpoint. Pair with {@link endDispatch}, or use
   * {@link dispatch}. Throws DISPATCH_ALREADY_OPEN while another dispatch is open.
   *
   * The catalogue sees every change a dispatch makes through it: tools write through the
   * Workspace, and a call that starts a process first makes the dispatch record the workspace
   * with a full scan. So the dispatch begins without scanning and, when only file tools ran,
   * ends by recording just the files they wrote. A host that also changes files itself between
   * beginDispatch and endDispatch must pass `{ observedWrites: false }`. A host that answers its
   * caller before it calls endDispatch passes `{ endsAfterTheAnswer: true }` (as
   * {@link dispatchAnswerFirst} does): nothing for the end then runs beside the calls.
   */
  beginDispatch(
    label?: string,
    options: { observedWrites?: boolean; endsAfterTheAnswer?: boolean } = {},
  ): Promise<OpenDispatch> {
    return this.#checkpoints.beginDispatch(label, {
      observedWrites: options.observedWrites ?? true,
      ...(options.endsAfterTheAnswer === true && { endsAfterTheAnswer: true }),
    });
  }

  /** Ends the open dispatch and records its checkpoint; throws DISPATCH_NOT_OPEN without one. */
  endDispatch(): Promise<EndedDispatch> {
    return this.#checkpoints.endDispatch();
  }

  /** Runs `work` as one dispatch: begins it, runs the work, and ends it even when the work fails. */
  async dispatch<Value>(
    label: string | undefined,
    work: (catalog: ToolCatalog) => Promise<Value>,
  ): Promise<Value> {
    await this.beginDispatch(label);
    try {
      return await work(this);
    } finally {
      await this.endDispatch();
    }
  }

  /**
   * Runs `work` as one dispatch like {@link dispatch}, but returns as soon as the work is done:
   * the dispatch's checkpoint is recorded afterwards, while the host hands the result on (the
   * MCP server answers its client the same way). Nothing can overtake that recording: a later
   * dispatch, call, undo or Workspace write of this catalogue runs after it, and {@link close}
   * waits for it. `checkpoint` settles once it is recorded, and rejects when it could not be
   * (await it, or the failure goes unreported). When `work` fails, the dispatch is ended before
   * the error is thrown, as in {@link dispatch}.
   *
   * @example
   * const { value, checkpoint } = await catalog.dispatchAnswerFirst('rename', (tools) =>
   *   tools.call('edit_file', { path: 'a.ts', old_text: 'old', new_text: 'new' }),
   * );
   * reply(value); // before the checkpoint is recorded
   * await checkpoint; // { id, changedFiles, ... }
   */
  async dispatchAnswerFirst<Value>(
    label: string | undefined,
    work: (catalog: ToolCatalog) => Promise<Value>,
  ): Promise<{ value: Value; checkpoint: Promise<EndedDispatch> }> {
    await this.beginDispatch(label, { endsAfterTheAnswer: true });
    let value: Value;
    try {
      value = await work(this);
    } catch (error) {
      await this.endDispatch();
      throw error;
    }
    const checkpoint = this.endDispatch();
    // Handled here too, so a host that never awaits it does not crash the process.
    checkpoint.catch(() => {});
    return { value, checkpoint };
  }

  /**
   * Ends everything the families started (browsers, language servers, background processes,
   * servers). Idempotent; later calls return CATALOG_CLOSED.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const outcomes = await Promise.allSettled(this.#families.map((family) => family.close()));
      const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
      if (failures.length > 0) {
        throw catalogError('CLOSE_FAILED', `${failures.length} tool family(ies) failed to close cleanly.`, {
          cause: failures.map((failure) => (failure as PromiseRejectedResult).reason),
        });
      }
    })();
    return this.#closed;
  }

  #modeFrom(options: ToolCatalogOptions, settings: CatalogSettings | undefined): ActiveMode {
    const permissionMode = options.permissionMode ?? settings?.permissionMode ?? 'auto';
    if (!isPermissionMode(permissionMode)) {
      throw catalogError(
        'INVALID_PERMISSION_MODE',
        `Unknown permission mode "${String(permissionMode)}"; use one of ${PERMISSION_MODE_NAMES.join(', ')}.`,
      );
    }
    const permissionsEnabled = options.permissionsEnabled ?? settings?.permissionsEnabled ?? true;
    return {
      permissionMode,
      permissionsEnabled,
      planFilter: permissionRulesFor(permissionMode, permissionsEnabled).planFilter,
    };
  }

  #installPolicies(): void {
    const policy = createPermissionPolicy({
      permissionMode: this.#mode.permissionMode,
      permissionsEnabled: this.#mode.permissionsEnabled,
      approve: this.#options.approve,
      hostExecution: this.#options.hostExecution,
    });
    this.#runtime.setPolicy(policy);
    this.#planRuntime.setPolicy(policy);
  }
}

function isCancelled(result: ToolResult): boolean {
  return resultErrorOf(result)?.code === 'CANCELLED';
}

function minutesToMs(minutes: number | undefined): number {
  const value = minutes ?? DEFAULT_EXECUTION_TIMEOUT_MINUTES;
  if (!Number.isFinite(value) || value <= 0) {
    throw catalogError(
      'INVALID_SETTINGS',
      `executionTimeoutMinutes must be a positive number, not ${value}.`,
    );
  }
  return value * 60_000;
}

async function openWorkspace(
  configuration: Configuration,
  workspace: string | Workspace,
): Promise<Workspace> {
  if (typeof workspace === 'string') return Workspace.open(workspace, { readOnly: configuration === 'R' });
  if (configuration === 'R' && !workspace.readOnly) return workspace.asReadOnly();
  return workspace;
}

/**
 * Creates the tool catalogue of a configuration on one workspace.
 *
 * @example
 * const catalog = await createToolCatalog({ configuration: 'U', workspace: '/srv/project', permissionMode: 'auto' });
 * const result = await catalog.call('read_file', { path: 'README.md' });
 * await catalog.close();
 */
export async function createToolCatalog(options: ToolCatalogOptions): Promise<ToolCatalog> {
  if (!isConfiguration(options.configuration)) {
    throw catalogError(
      'INVALID_CONFIGURATION',
      `Unknown configuration "${String(options.configuration)}"; use W, U or R.`,
    );
  }
  for (const mode of [options.permissionMode, options.settings?.permissionMode]) {
    if (mode !== undefined && !isPermissionMode(mode)) {
      throw catalogError(
        'INVALID_PERMISSION_MODE',
        `Unknown permission mode "${String(mode)}"; use one of ${PERMISSION_MODE_NAMES.join(', ')}.`,
      );
    }
  }
  const workspace = await openWorkspace(options.configuration, options.workspace);
  const executionTimeoutSeconds = minutesToMs(options.settings?.executionTimeoutMinutes) / 1000;
  const assembled = await assembleFamilies(
    options.configuration,
    workspace,
    options.families ?? {},
    executionTimeoutSeconds,
    options.onFamilyLoaded,
    options.omitFamilies,
  );
  try {
    const definitions = toolsOfConfiguration(assembled.tools, options.configuration);
    return new ToolCatalog(options, workspace, assembled, definitions);
  } catch (error) {
    await Promise.allSettled(assembled.families.map((family) => family.close()));
    throw error;
  }
}
